import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import Credentials from "@portcullis/core/providers/credentials"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SIMPLEWEBAUTHN_BROWSER_UMD, SIMPLEWEBAUTHN_BROWSER_VERSION } from "../../src/lib/webauthn/browser-bundle.generated.js"
import { SECRET } from "../helpers.js"
import { installedBundle, renderModule, generatedPath } from "./browser-bundle.js"
import { readFileSync } from "node:fs"
import { runInNewContext } from "node:vm"
import { webauthnPageScripts } from "../../src/lib/webauthn/page-script.js"

/** The built-in sign-in page ships its own passkey client (issue 6): no CDN, one copy per page. */
function config(providers: AuthConfig["providers"]): AuthConfig {
  return { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), experimental: { enableWebAuthn: true }, providers, logger: { warn: () => {} } }
}

async function signinPage(providers: AuthConfig["providers"]) {
  const response = await Auth(new Request("http://localhost:3000/auth/signin"), config(providers))
  return { html: await response.text(), csp: response.headers.get("content-security-policy")! }
}

const formTag = (html: string) => /<form id="passkey-form"[^>]*>/.exec(html)?.[0] ?? ""

describe("sign-in page passkey client", () => {
  it("inlines the bundle and the form script once, from this origin only", async () => {
    const { html, csp } = await signinPage([Passkey])
    const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!)
    // The bundle, the passkey form script, then the identifier-first page's step script.
    expect(scripts).toHaveLength(3)
    expect(scripts[0]).toContain(`@simplewebauthn/browser@${SIMPLEWEBAUTHN_BROWSER_VERSION}`)
    expect(scripts[1]).toContain("data-options-url")
    expect(html).not.toMatch(/<script[^>]+src=/)
    expect(html).toContain('id="passkey-form"')
    expect(formTag(html)).toContain('data-options-url="/auth/webauthn-options/passkey"')
    expect(formTag(html)).toContain("data-conditional-ui")
    expect(html).toContain('autocomplete="username webauthn"')
    expect(csp).toContain("script-src 'self' 'unsafe-inline'")
    expect(csp).toContain("connect-src 'self'")
  })

  it("leaves conditional UI out when the provider turns it off", async () => {
    const { html } = await signinPage([Passkey({ enableConditionalUI: false })])
    expect(formTag(html)).toContain('data-webauthn-provider="passkey"')
    expect(formTag(html)).not.toContain("data-conditional-ui")
  })

  it("adds no script to pages without a WebAuthn provider", async () => {
    const { html } = await signinPage([Credentials({ credentials: { username: {} }, authorize: () => null })])
    expect(html).not.toContain("<script")
  })

  it("embeds the installed @simplewebauthn/browser bundle, safe inside a script element", () => {
    const installed = installedBundle()
    expect(SIMPLEWEBAUTHN_BROWSER_VERSION).toBe(installed.version)
    expect(SIMPLEWEBAUTHN_BROWSER_UMD).toBe(installed.code)
    // Out of date? Run: scripts/node24 node packages/core/test/webauthn/browser-bundle.ts
    expect(readFileSync(generatedPath, "utf8")).toBe(renderModule(installed))
    expect(SIMPLEWEBAUTHN_BROWSER_UMD).not.toMatch(/<\/script|<!--/i)
  })
})

/**
 * Issue 28 item 6: the server no longer picks sign-up or sign-in from whether the typed address
 * has an account, so the form says which one the user wants: its sign-up button asks for
 * `action=register`, its sign-in button (and Enter) leaves the choice to the server.
 */
describe("the passkey form's two buttons", () => {
  it("are a sign-in and a sign-up button, in the page's language", async () => {
    const { html } = await signinPage([Passkey])
    const form = /<form id="passkey-form"[\s\S]*?<\/form>/.exec(html)![0]
    expect(form).toContain('<button type="submit">Sign in with Passkey</button>')
    expect(form).toContain('<button type="submit" name="action" value="register">Sign up with Passkey</button>')
    const response = await Auth(new Request("http://localhost:3000/auth/signin", { headers: { "accept-language": "de" } }), config([Passkey]))
    expect(await response.text()).toContain('<button type="submit" name="action" value="register">Mit Passkey registrieren</button>')
  })

  /** Runs the form script against a stand-in page with one passkey form; returns how to press its buttons. */
  function formScript() {
    const fetched: URL[] = []
    const ceremonies: string[] = []
    let onSubmit: ((event: unknown) => void) | undefined
    const email = { type: "email", name: "email", value: "new@example.com" }
    const form = {
      dataset: { optionsUrl: "/auth/webauthn-options/passkey", messages: "{}" },
      hasAttribute: () => false,
      querySelector: () => null,
      querySelectorAll: (selector: string) => (selector === "input" ? [email] : []),
      prepend() {},
      append() {},
      addEventListener: (type: string, listener: (event: unknown) => void) => {
        if (type === "submit") onSubmit = listener
      },
    }
    const lib = {
      browserSupportsWebAuthn: () => true,
      browserSupportsWebAuthnAutofill: async () => false,
      startRegistration: async () => (ceremonies.push("register"), { id: "new" }),
      startAuthentication: async () => (ceremonies.push("authenticate"), { id: "old" }),
    }
    const submitted: unknown[] = []
    runInNewContext(webauthnPageScripts[1]!, {
      window: { SimpleWebAuthnBrowser: lib, location: { href: "http://localhost:3000/auth/signin" }, addEventListener() {} },
      document: { querySelectorAll: () => [form], createElement: () => ({ setAttribute() {} }) },
      HTMLFormElement: { prototype: { submit() { submitted.push(this) } } },
      URL,
      JSON,
      fetch: async (url: URL) => {
        fetched.push(url)
        return { ok: true, json: async () => ({ action: url.searchParams.get("action") ?? "authenticate", options: {} }) }
      },
    })
    const press = async (submitter: { name: string; value: string } | null) => {
      onSubmit!({ preventDefault() {}, submitter })
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    return { press, fetched, ceremonies, submitted }
  }

  it("ask for a registration from the sign-up button, and leave the choice to the server otherwise", async () => {
    const signUp = formScript()
    await signUp.press({ name: "action", value: "register" })
    expect(signUp.fetched[0]!.searchParams.get("action")).toBe("register")
    expect(signUp.fetched[0]!.searchParams.get("email")).toBe("new@example.com")
    expect(signUp.ceremonies).toEqual(["register"])
    expect(signUp.submitted).toHaveLength(1)

    for (const submitter of [{ name: "", value: "" }, null]) {
      const signIn = formScript()
      await signIn.press(submitter)
      expect(signIn.fetched[0]!.searchParams.has("action")).toBe(false)
      expect(signIn.ceremonies).toEqual(["authenticate"])
    }
  })
})

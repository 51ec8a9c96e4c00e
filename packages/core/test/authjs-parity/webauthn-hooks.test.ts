/**
 * The WebAuthn provider's `getRelayingParty` and `getUserInfo` hooks work as in Auth.js
 * (issue #16 C.7), with Portcullis's checks kept: a hook's relying party must be a real
 * one, and the store — not a hook — decides whether an address already has an account.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import type { WebAuthnUserInfo } from "@portcullis/core/providers/webauthn"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, direct, SECRET } from "../helpers.js"
import { SoftCredential } from "../webauthn/soft-authenticator.js"
import { authenticators, ORIGIN, PasskeyBrowser } from "../webauthn/support.js"

function setup(providerOptions: Parameters<typeof Passkey>[0]) {
  const adapter = MemoryAdapter()
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    providers: [Passkey(providerOptions)],
    logger: log.logger,
  }
  return { adapter, log, browser: () => new PasskeyBrowser(direct(config), ORIGIN) }
}

describe("getRelayingParty decides the relying party of each ceremony, as in Auth.js", () => {
  it("gets Auth.js's options (the site URL, the provider) and the request, and its answer is used for options and verification", async () => {
    const seen: { url: string; provider: string; query: Record<string, string> }[] = []
    const { adapter, browser } = setup({
      getRelayingParty: (options, request) => {
        seen.push({ url: options.url.href, provider: options.provider.id, query: request.query })
        return { id: "localhost", name: "Hooked RP", origin: options.url.origin }
      },
    })
    const b = browser()
    const { body } = await b.options({ action: "register", email: "new@example.com" })
    expect(body.options.rp).toEqual({ id: "localhost", name: "Hooked RP" })
    expect(seen[0]).toEqual({ url: `${ORIGIN}/auth`, provider: "passkey", query: { action: "register", email: "new@example.com" } })

    const response = await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options))
    expect(response.status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
    expect(await authenticators(adapter, "new@example.com")).toHaveLength(1)
  })

  it("a response from an origin other than the hook's is refused", async () => {
    const { browser } = setup({ getRelayingParty: () => ({ id: "localhost", name: "RP", origin: "https://other.example" }) })
    const b = browser()
    const { body } = await b.options({ action: "register", email: "new@example.com" })
    const response = await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options))
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("WebAuthnVerificationError")
  })

  it.each([
    ["no answer", undefined],
    ["an origin with a path", { id: "localhost", name: "RP", origin: "http://localhost:3000/app" }],
    ["an origin that is not a URL", { id: "localhost", name: "RP", origin: "localhost" }],
    ["an id with a scheme", { id: "https://localhost", name: "RP", origin: ORIGIN }],
  ])("hostile: a hook answering %s is a configuration error, not a ceremony", async (_name, answer) => {
    const { browser, log } = setup({ getRelayingParty: () => answer as any })
    const response = await browser().request("/auth/webauthn-options/passkey?email=new%40example.com")
    expect(response.status).toBe(302)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/error?error=Configuration`)
    expect(log.lines.some((l) => l.startsWith("InvalidConfig: getRelayingParty"))).toBe(true)
  })
})

describe("getUserInfo says who asks for options when nobody is signed in, as in Auth.js", () => {
  it("its email (from wherever the app reads it) is the one registered", async () => {
    const { adapter, browser } = setup({
      getUserInfo: (_options, request): WebAuthnUserInfo | null => {
        const email = request.query.login
        return email ? { user: { email }, exists: false } : null
      },
    })
    const b = browser()
    const { body } = await b.options({ login: "hooked@example.com" })
    expect(body.action).toBe("register")
    expect(body.options.user.name).toBe("hooked@example.com")
    await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options))
    expect(await authenticators(adapter, "hooked@example.com")).toHaveLength(1)
  })

  it("null means nobody known: authentication with any discoverable passkey", async () => {
    const { browser } = setup({ getUserInfo: () => null })
    const { body } = await browser().options({ email: "ignored@example.com" })
    expect(body.action).toBe("authenticate")
    expect(body.options.allowCredentials).toBeUndefined()
  })

  it("hostile: a hook claiming a taken address is new cannot register a passkey onto that account", async () => {
    const { adapter, browser } = setup({ getUserInfo: () => ({ user: { email: "victim@example.com" }, exists: false }) })
    await adapter.createUser!({ id: "victim", email: "victim@example.com", emailVerified: new Date() })
    const b = browser()
    const { body } = await b.options({ action: "register" })
    // The options are those of any address (issue 28 item 6); the callback refuses the taken one.
    const response = await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options))
    expect(new URL(response.headers.get("location")!).searchParams.get("error")).toBe("AccountNotLinked")
    expect(await authenticators(adapter, "victim@example.com")).toHaveLength(0)
  })
})

describe("WebAuthn providers are checked with the configuration, as in Auth.js", () => {
  const answer = async (providers: AuthConfig["providers"]) => {
    const log = captureLogger()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), experimental: { enableWebAuthn: true }, providers, logger: log.logger }
    const response = await new PasskeyBrowser(direct(config), ORIGIN).request("/auth/providers")
    return { status: response.status, log: log.lines.join("\n") }
  }

  it("two providers asking for conditional UI: DuplicateConditionalUI on every request", async () => {
    const { status, log } = await answer([Passkey, Passkey({ id: "second" })])
    expect(status).toBe(500)
    expect(log).toContain("DuplicateConditionalUI")
  })

  it("conditional UI without a webauthn autocomplete field: MissingWebAuthnAutocomplete", async () => {
    const { status, log } = await answer([Passkey({ formFields: { email: { label: "Email", autocomplete: "username" } } })])
    expect(status).toBe(500)
    expect(log).toContain("MissingWebAuthnAutocomplete")
  })

  it("hostile: a simpleWebAuthnBrowserVersion that is not a version (it once went into a script URL) is refused", async () => {
    const { status } = await answer([Passkey({ simpleWebAuthnBrowserVersion: 'v9"><script>alert(1)</script>' })])
    expect(status).toBe(500)
  })

  it("one conditional-UI provider beside one without is fine", async () => {
    const { status } = await answer([Passkey, Passkey({ id: "second", enableConditionalUI: false })])
    expect(status).toBe(200)
  })
})

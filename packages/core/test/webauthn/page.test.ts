import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import Credentials from "@portcullis/core/providers/credentials"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SIMPLEWEBAUTHN_BROWSER_UMD, SIMPLEWEBAUTHN_BROWSER_VERSION } from "../../src/lib/webauthn/browser-bundle.generated.js"
import { SECRET } from "../helpers.js"
import { installedBundle, renderModule, generatedPath } from "./browser-bundle.js"
import { readFileSync } from "node:fs"

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
    expect(scripts).toHaveLength(2)
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

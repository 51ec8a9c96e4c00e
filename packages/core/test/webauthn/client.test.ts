import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { type AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, direct, SECRET } from "../helpers.js"
import { SoftCredential } from "./soft-authenticator.js"

/**
 * `@portcullis/core/webauthn`'s `signIn` against `Auth()` (issue 6): the browser library is
 * replaced by the software authenticator, `fetch` by a cookie-keeping client, so what is
 * checked is the wire protocol — options, CSRF token, `X-Auth-Return-Redirect`, the result.
 */
const ORIGIN = "http://localhost:3000"
const device = { credential: new SoftCredential(ORIGIN, "localhost"), tweak: {} as Record<string, unknown> }

vi.mock("@simplewebauthn/browser", () => ({
  startRegistration: vi.fn(async ({ optionsJSON }: any) => device.credential.register(optionsJSON)),
  startAuthentication: vi.fn(async ({ optionsJSON }: any) => device.credential.authenticate(optionsJSON, { clientData: device.tweak })),
  browserSupportsWebAuthn: () => true,
  browserSupportsWebAuthnAutofill: async () => false,
}))

const { signIn } = await import("@portcullis/core/webauthn")
const browserLib = await import("@simplewebauthn/browser")

describe("signIn from @portcullis/core/webauthn", () => {
  let browser: Browser
  const sent: Request[] = []
  const location = { href: `${ORIGIN}/account`, reload: vi.fn() }
  beforeEach(() => {
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), experimental: { enableWebAuthn: true }, providers: [Passkey], logger: { warn: () => {}, error: () => {} } }
    browser = new Browser(direct(config), ORIGIN)
    device.credential = new SoftCredential(ORIGIN, "localhost")
    device.tweak = {}
    sent.length = 0
    vi.stubGlobal("window", { location })
    vi.stubGlobal("fetch", async (input: string | URL, init: RequestInit = {}) => {
      sent.push(new Request(new URL(String(input), ORIGIN), init))
      return browser.request(String(input), init)
    })
  })
  afterEach(() => vi.unstubAllGlobals())

  it("signs up with a new email without navigating, then signs in and navigates", async () => {
    const result = await signIn("passkey", { action: "register", email: "ada@example.com", redirect: false, redirectTo: "/dashboard" })
    expect(result).toEqual({ url: `${ORIGIN}/dashboard`, error: undefined, ok: true })
    expect(browserLib.startRegistration).toHaveBeenCalledOnce()
    const post = sent.find((r) => r.method === "POST")!
    expect(post.headers.get("x-auth-return-redirect")).toBe("1")
    const form = new URLSearchParams(await post.text())
    expect(form.get("action")).toBe("register")
    expect(form.get("csrfToken")).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.parse(form.get("data")!).id).toBe(device.credential.id.toString("base64url"))
    expect((await browser.session()).user.email).toBe("ada@example.com")

    await browser.signOut()
    const again = await signIn("passkey", { email: "ada@example.com" })
    expect(again.ok).toBe(true)
    expect(location.href).toBe(`${ORIGIN}/account`)
    expect(browserLib.startAuthentication).toHaveBeenCalledOnce()
    expect((await browser.session()).user.email).toBe("ada@example.com")
  })

  it("reports a refused passkey as the error code", async () => {
    await signIn("passkey", { action: "register", email: "ada@example.com", redirect: false })
    await browser.signOut()
    device.tweak = { origin: "https://evil.example" }
    const result = await signIn("passkey", { action: "authenticate", redirect: false })
    expect(result.ok).toBe(false)
    expect(result.error).toBe("WebAuthnVerificationError")
    expect(await browser.session()).toBeNull()
  })

  it("rejects when the server refuses to issue options", async () => {
    await expect(signIn("passkey", { action: "register", redirect: false })).rejects.toThrow(/400/)
  })
})

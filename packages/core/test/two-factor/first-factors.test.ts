/**
 * The second step after the other first factors: OAuth (OIDC, against a real local
 * provider) asks for the code and then issues the session with the provider's account and
 * profile; a passkey skips the step by default (`passkeySkips`) and asks for it when told to.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import Passkey from "@portcullis/core/providers/passkey"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, direct, SECRET } from "../helpers.js"
import { signInThrough, useFakeOP } from "../oauth/flow.js"
import { SoftCredential } from "../webauthn/soft-authenticator.js"
import { ORIGIN, PasskeyBrowser } from "../webauthn/support.js"
import { enroll, secondFactor } from "./support.js"

describe("after an OAuth sign-in", () => {
  const fake = useFakeOP()

  it("asks for the code, then issues the session with the provider's account and profile", async () => {
    const adapter = MemoryAdapter()
    const signIns: { account?: unknown; profile?: unknown; isNewUser?: boolean }[] = []
    const provider = { id: "op", name: "OP", type: "oidc", issuer: fake.op.issuer, clientId: fake.op.clientId, clientSecret: fake.op.clientSecret, allowInsecureLoopback: true } as OAuthConfig<any>
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, providers: [provider], twoFactor: {}, events: { signIn: (m) => void signIns.push(m) } }
    // The first sign-in creates the user; they then turn 2FA on.
    const first = new Browser(direct(config))
    expect((await signInThrough(first, "op")).headers.get("location")).toBe(ORIGIN)
    const user = await adapter.getUserByEmail!("alice@example.com")
    const { secret } = await enroll(config, user!.id)
    signIns.length = 0

    const b = new Browser(direct(config))
    const callback = await signInThrough(b, "op", { callbackUrl: "/inbox" })
    expect(callback.headers.get("location")).toBe(`${ORIGIN}/auth/two-factor`)
    expect(b.sessionCookie()).toBeUndefined()
    expect(signIns).toHaveLength(0)
    const response = await secondFactor(b, totpCode(secret))
    expect(response.headers.get("location")).toBe(`${ORIGIN}/inbox`)
    expect((await b.session()).user.email).toBe("alice@example.com")
    expect(signIns).toHaveLength(1)
    expect(signIns[0]).toMatchObject({ account: { provider: "op", providerAccountId: "user-1" }, profile: { email: "alice@example.com" }, isNewUser: false })
  })
})

describe("after a passkey sign-in", () => {
  function passkeyApp(twoFactor: AuthConfig["twoFactor"]) {
    const adapter = MemoryAdapter()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter, experimental: { enableWebAuthn: true }, providers: [Passkey], twoFactor, logger: { warn: () => {} } }
    return { adapter, config, browser: () => new PasskeyBrowser(direct(config), ORIGIN) }
  }

  async function registerAndEnroll(app: ReturnType<typeof passkeyApp>) {
    const b = app.browser()
    const credential = new SoftCredential(ORIGIN, "localhost")
    const { body } = await b.options({ action: "register", email: "pat@example.com" })
    expect((await b.callback("register", credential.register(body.options))).status).toBe(302)
    const user = await app.adapter.getUserByEmail!("pat@example.com")
    const { secret } = await enroll(app.config, user!.id)
    return { credential, secret }
  }

  it("skips the step by default: a passkey is already two factors", async () => {
    const app = passkeyApp({})
    const { credential } = await registerAndEnroll(app)
    const b = app.browser()
    const response = await b.authenticate(credential)
    expect(response.headers.get("location")).toBe(ORIGIN)
    expect((await b.session()).user.email).toBe("pat@example.com")
  })

  it("asks for the code with passkeySkips: false", async () => {
    const app = passkeyApp({ passkeySkips: false })
    const { credential, secret } = await registerAndEnroll(app)
    const b = app.browser()
    const response = await b.authenticate(credential)
    expect(response.headers.get("location")).toBe(`${ORIGIN}/auth/two-factor`)
    expect(b.sessionCookie()).toBeUndefined()
    expect((await secondFactor(b, totpCode(secret))).status).toBe(302)
    expect((await b.session()).user.email).toBe("pat@example.com")
  })
})

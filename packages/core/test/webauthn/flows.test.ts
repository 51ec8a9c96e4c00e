import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import WebAuthn from "@portcullis/core/providers/webauthn"
import { WebAuthnVerificationError } from "@portcullis/core/errors"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { WebAuthnVerificationError as PasskeyRefusal } from "../../src/lib/webauthn/errors.js"
import { captureLogger, direct, SECRET } from "../helpers.js"
import { FLAGS, SoftCredential, type Tweaks } from "./soft-authenticator.js"
import { authenticators, expectRefused, location, ORIGIN, PasskeyBrowser } from "./support.js"

/**
 * Passkey registration and sign-in through `Auth()` with a software authenticator (issue
 * 6; spec §2.9, §4.1 rule 2, §4.5; checklist T57–T63 and §2.7). Each refusal is checked
 * to end on the sign-in page with only the public code, with no session and no rows.
 */
function setup(extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter()
  const capture = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    providers: [Passkey],
    logger: capture.logger,
    ...extra,
  }
  return { adapter, config, lines: capture.lines, browser: () => new PasskeyBrowser(direct(config), ORIGIN) }
}

describe("webauthn-options", () => {
  it("offers registration for an unknown email and seals the challenge in a cookie", async () => {
    const { browser } = setup()
    const b = browser()
    const { status, body, response } = await b.options({ action: "register", email: "new@example.com" })
    expect(status).toBe(200)
    expect(response.headers.get("cache-control")).toContain("no-store")
    expect(body.action).toBe("register")
    expect(body.options).toMatchObject({ rp: { id: "localhost", name: "localhost:3000" }, user: { name: "new@example.com" }, excludeCredentials: [] })
    expect(body.options.authenticatorSelection).toMatchObject({ residentKey: "required", userVerification: "required" })
    // T57: at least 16 random bytes, and the cookie never carries it in the clear.
    expect(Buffer.from(body.options.challenge, "base64url").length).toBeGreaterThanOrEqual(16)
    const cookie = b.lastSetCookies.find((c) => c.name === "authjs.challenge")
    expect(cookie).toBeDefined()
    expect(cookie!.value).not.toContain(body.options.challenge)
    expect(cookie!.attributes).toMatchObject({ httponly: true, samesite: "Lax" })
  })

  it("offers authentication when no email is named, or the email is known", async () => {
    const { browser, adapter } = setup()
    const b = browser()
    expect((await b.options()).body.action).toBe("authenticate")
    await adapter.createUser!({ id: "u1", email: "known@example.com", emailVerified: null })
    const { body } = await b.options({ email: "known@example.com" })
    expect(body.action).toBe("authenticate")
    expect(body.options).toMatchObject({ rpId: "localhost", userVerification: "required" })
  })

  it("answers 400 for a bad action, a bad email to register, or a registration naming nobody", async () => {
    const { browser } = setup()
    const b = browser()
    expect(await b.options({ action: "delete" })).toMatchObject({ status: 400, body: { error: "Invalid action" } })
    expect(await b.options({ action: "register", email: "not an email" })).toMatchObject({ status: 400, body: { error: "Invalid email" } })
    expect(await b.options({ action: "register" })).toMatchObject({ status: 400, body: { error: "Invalid request" } })
  })

  it("refuses registering onto an existing account at the callback, the options being those of any address", async () => {
    const { browser, adapter } = setup()
    await adapter.createUser!({ id: "u1", email: "victim@example.com", emailVerified: null })
    const b = browser()
    expectRefused(await b.register(new SoftCredential(ORIGIN, "localhost"), { email: "victim@example.com" }), b, "AccountNotLinked")
    expect(await adapter.listAuthenticatorsByUserId!("u1")).toEqual([])
  })

  it("uses the configured relying party over the site origin", async () => {
    const { browser } = setup({ providers: [Passkey({ relayingParty: { id: "example.com", name: "Example", origin: "https://example.com" } })] })
    const { body } = await browser().options({ action: "register", email: "a@example.com" })
    expect(body.options.rp).toEqual({ id: "example.com", name: "Example" })
  })
})

describe("passkey registration and sign-in", () => {
  it("registers a new user, signs out, and signs back in with the passkey", async () => {
    const { browser, adapter } = setup()
    const b = browser()
    const credential = new SoftCredential(ORIGIN, "localhost")
    const { body } = await b.options({ action: "register", email: "Ada@Example.com" })
    expect(body.action).toBe("register")
    const registered = await b.callback("register", credential.register(body.options), { callbackUrl: "/welcome" })
    expect(registered.status).toBe(302)
    expect(registered.headers.get("location")).toBe(`${ORIGIN}/welcome`)
    expect(b.sessionCookie()).toBeDefined()
    expect(b.jar.has("authjs.challenge")).toBe(false)
    expect((await b.session()).user).toMatchObject({ email: "ada@example.com" })

    // Stored as Auth.js stores it: padded base64 of the raw bytes, the account keyed by it.
    const [stored] = await authenticators(adapter, "ada@example.com")
    expect(stored).toMatchObject({
      credentialID: credential.id.toString("base64"),
      providerAccountId: credential.id.toString("base64"),
      credentialPublicKey: credential.coseKey().toString("base64"),
      counter: 0,
      credentialDeviceType: "singleDevice",
      credentialBackedUp: false,
      transports: "internal",
    })
    const account = await adapter.getAccount!(stored!.credentialID, "passkey")
    expect(account).toMatchObject({ type: "webauthn", userId: stored!.userId })

    await b.signOut()
    expect((await b.session())).toBeNull()
    const signedIn = await b.authenticate(credential)
    expect(signedIn.status).toBe(302)
    expect((await b.session()).user).toMatchObject({ email: "ada@example.com" })
  })

  it("lists a signed-in user's own credentials when she re-authenticates, and requires the one used to be hers (T62)", async () => {
    const { browser } = setup()
    const ada = new SoftCredential(ORIGIN, "localhost")
    const eve = new SoftCredential(ORIGIN, "localhost")
    const b = browser()
    await b.register(ada, { email: "ada@example.com" })
    await browser().register(eve, { email: "eve@example.com" })

    const { body } = await b.options({ action: "authenticate" })
    expect(body.options.allowCredentials).toEqual([{ id: ada.id.toString("base64url"), type: "public-key", transports: ["internal"] }])
    // Eve's credential against a challenge issued for Ada: the same error as an unknown credential.
    const refused = await b.callback("authenticate", eve.authenticate(body.options))
    expect(new URL(refused.headers.get("location")!).searchParams.get("error")).toBe("WebAuthnVerificationError")
    expect((await b.session()).user.email).toBe("ada@example.com")
  })

  it("lists nobody's credentials for an address someone typed: a passkey signs in its own user", async () => {
    const { browser } = setup()
    const ada = new SoftCredential(ORIGIN, "localhost")
    await browser().register(ada, { email: "ada@example.com" })
    const b = browser()
    const { body } = await b.options({ email: "ada@example.com" })
    expect(body).toMatchObject({ action: "authenticate" })
    expect(body.options.allowCredentials).toBeUndefined()
    expect((await b.callback("authenticate", ada.authenticate(body.options))).status).toBe(302)
    expect((await b.session()).user.email).toBe("ada@example.com")
  })

  it("adds a second passkey to the signed-in user, excluding the first", async () => {
    const { browser, adapter } = setup()
    const b = browser()
    const first = new SoftCredential(ORIGIN, "localhost")
    const second = new SoftCredential(ORIGIN, "localhost")
    await b.register(first, { email: "ada@example.com" })
    const userId = (await adapter.getUserByEmail!("ada@example.com"))!.id

    const { body } = await b.options()
    expect(body.action).toBe("register")
    expect(body.options.excludeCredentials).toEqual([{ id: first.id.toString("base64url"), type: "public-key", transports: ["internal"] }])
    const response = await b.callback("register", second.register(body.options))
    expect(response.status).toBe(302)
    const list = await authenticators(adapter, "ada@example.com")
    expect(list.map((a) => a.credentialID).sort()).toEqual([first.id.toString("base64"), second.id.toString("base64")].sort())
    expect(list.every((a) => a.userId === userId)).toBe(true)

    await b.signOut()
    expect((await b.authenticate(second)).status).toBe(302)
    expect((await b.session()).user.email).toBe("ada@example.com")
  })

  it("keeps the counter growing and refuses a counter that did not grow (T63)", async () => {
    const { browser, adapter } = setup()
    const b = browser()
    const credential = new SoftCredential(ORIGIN, "localhost", { counting: true })
    await b.register(credential, { email: "ada@example.com" })
    await b.signOut()
    expect((await b.authenticate(credential)).status).toBe(302)
    expect((await authenticators(adapter, "ada@example.com"))[0]!.counter).toBe(2)
    await b.signOut()
    // A cloned authenticator reports the same count as the last sign-in.
    expectRefused(await b.authenticate(credential, {}, { counter: 2 }), b)
    expect((await authenticators(adapter, "ada@example.com"))[0]!.counter).toBe(2)
  })

  it("signs in with an authenticator stored by Auth.js (base64 with padding, comma-joined transports)", async () => {
    const { browser, adapter } = setup()
    const credential = new SoftCredential(ORIGIN, "localhost", { idLength: 16 })
    const user = await adapter.createUser!({ id: "authjs-user", email: "old@example.com", emailVerified: null })
    const credentialID = credential.id.toString("base64")
    expect(credentialID.endsWith("==")).toBe(true)
    await adapter.linkAccount!({ userId: user.id, type: "webauthn", provider: "passkey", providerAccountId: credentialID })
    await adapter.createAuthenticator!({
      credentialID,
      userId: user.id,
      providerAccountId: credentialID,
      credentialPublicKey: credential.coseKey().toString("base64"),
      counter: 0,
      credentialDeviceType: "multiDevice",
      credentialBackedUp: true,
      transports: "internal,hybrid",
    })
    const b = browser()
    const { body } = await b.options({ action: "authenticate" })
    const response = await b.callback("authenticate", credential.authenticate(body.options, { flags: FLAGS.UP | FLAGS.UV | FLAGS.BE | FLAGS.BS }))
    expect(response.status).toBe(302)
    expect((await b.session()).user.email).toBe("old@example.com")
  })

  it("honours callbacks.signIn refusing a passkey sign-up, and stores nothing", async () => {
    const { browser, adapter } = setup({ callbacks: { signIn: ({ user }) => user.email !== "blocked@example.com" } })
    const b = browser()
    const response = await b.register(new SoftCredential(ORIGIN, "localhost"), { email: "blocked@example.com" })
    expect(location(response).searchParams.get("error")).toBe("AccessDenied")
    expect(await adapter.getUserByEmail!("blocked@example.com")).toBeNull()
  })
})

describe("refusals", () => {
  let env: ReturnType<typeof setup>
  let b: PasskeyBrowser
  let credential: SoftCredential
  beforeEach(async () => {
    env = setup()
    b = env.browser()
    credential = new SoftCredential(ORIGIN, "localhost")
    await b.register(credential, { email: "ada@example.com" })
    await b.signOut()
  })
  afterEach(() => vi.useRealTimers())

  it("an unknown credential gets the generic error", async () => {
    expectRefused(await b.authenticate(new SoftCredential(ORIGIN, "localhost")), b)
  })

  it.each<[string, Tweaks]>([
    ["another origin", { clientData: { origin: "https://evil.example" } }],
    ["another port", { clientData: { origin: "http://localhost:3001" } }],
    ["an origin with a trailing slash", { clientData: { origin: `${ORIGIN}/` } }],
    ["a cross-origin frame", { clientData: { crossOrigin: true } }],
    ["the registration type", { clientData: { type: "webauthn.create" } }],
    ["clientDataJSON changed after signing", { tamperClientData: (json) => json.replace('"crossOrigin":false', '"crossOrigin":false,"x":1') }],
    ["another RP id hash", { rpId: "evil.example" }],
    ["no user presence", { flags: FLAGS.UV }],
    ["no user verification on a passkey", { flags: FLAGS.UP }],
    ["backed up but not backup-eligible", { flags: FLAGS.UP | FLAGS.UV | FLAGS.BS }],
  ])("an assertion with %s is refused (T58, T59)", async (_name, tweaks) => {
    expectRefused(await b.authenticate(credential, {}, tweaks), b)
  })

  it("a signature by another key is refused (T60)", async () => {
    const other = new SoftCredential(ORIGIN, "localhost")
    expectRefused(await b.authenticate(credential, {}, { signWith: other.privateKey }), b)
  })

  it("a replayed request (same cookie, same assertion) is refused, even for a counter-less passkey (T57)", async () => {
    const { body } = await b.options({ action: "authenticate" })
    const cookie = b.cookieHeader()
    const data = JSON.stringify(credential.authenticate(body.options))
    const csrfToken = await b.csrfToken()
    const replay = () =>
      b.request("/auth/callback/passkey", { headers: { cookie: `${cookie}; ${b.cookieHeader()}` }, form: { action: "authenticate", data, csrfToken } })
    expect((await replay()).status).toBe(302)
    expect(b.sessionCookie()).toBeDefined()
    b.jar.clear()
    const again = await replay()
    expectRefused(again, b)
  })

  it("a missing challenge cookie is refused", async () => {
    const { body } = await b.options({ action: "authenticate" })
    b.jar.delete("authjs.challenge")
    expectRefused(await b.callback("authenticate", credential.authenticate(body.options)), b)
  })

  it("a challenge older than the ceremony timeout is refused", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const { body } = await b.options({ action: "authenticate" })
    vi.setSystemTime(Date.now() + 7 * 60 * 1000)
    expectRefused(await b.callback("authenticate", credential.authenticate(body.options)), b)
  })

  it("a challenge issued for registration does not serve an authentication", async () => {
    const { body } = await b.options({ action: "register", email: "other@example.com" })
    expect(body.action).toBe("register")
    expectRefused(await b.callback("authenticate", credential.authenticate(body.options)), b)
  })

  it("a challenge for one provider does not serve another", async () => {
    // One conditional-UI provider per configuration (Auth.js's DuplicateConditionalUI rule).
    const two = setup({ providers: [Passkey, WebAuthn({ id: "key", enableConditionalUI: false })] })
    const c = two.browser()
    const { body } = await c.options({ action: "register", email: "new@example.com" }, "key")
    const response = await c.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options), {}, "passkey")
    expectRefused(response, c)
  })

  it("a credential registered twice is refused, and an id over 1023 bytes too (T61)", async () => {
    const c = env.browser()
    expectRefused(await c.register(credential, { email: "second@example.com" }), c)
    const long = new SoftCredential(ORIGIN, "localhost", { idLength: 1024 })
    expectRefused(await c.register(long, { email: "third@example.com" }), c)
    expect(await env.adapter.getUserByEmail!("second@example.com")).toBeNull()
    expect(await env.adapter.getUserByEmail!("third@example.com")).toBeNull()
  })

  it("registering an email that got an account meanwhile is refused with AccountNotLinked", async () => {
    const { body } = await b.options({ action: "register", email: "late@example.com" })
    await env.adapter.createUser!({ id: "late", email: "late@example.com", emailVerified: null })
    expectRefused(await b.callback("register", new SoftCredential(ORIGIN, "localhost").register(body.options)), b, "AccountNotLinked")
  })

  it("a malformed response or action is refused with the generic error", async () => {
    await b.options({ action: "authenticate" })
    expectRefused(await b.callback("authenticate", "{not json"), b)
    await b.options({ action: "authenticate" })
    expectRefused(await b.callback("authenticate", { id: "***" }), b)
    expectRefused(await b.callback("delete", {}), b)
  })

  it("the callback needs the CSRF token", async () => {
    const { body } = await b.options({ action: "authenticate" })
    const response = await b.request("/auth/callback/passkey", { form: { action: "authenticate", data: JSON.stringify(credential.authenticate(body.options)) } })
    expectRefused(response, b, "MissingCSRF")
  })

  it("never logs the challenge (T65)", async () => {
    const { body } = await b.options({ action: "authenticate" })
    await b.callback("authenticate", credential.authenticate(body.options, { clientData: { challenge: "A".repeat(43) } }))
    expect(env.lines.join("\n")).toContain("WebAuthnVerificationError")
    expect(env.lines.join("\n")).not.toContain(body.options.challenge)
  })
})

describe("errors", () => {
  it("refusals are WebAuthnVerificationErrors that return to the sign-in page", () => {
    const error = new PasskeyRefusal("Unknown credential")
    expect(error).toBeInstanceOf(WebAuthnVerificationError)
    expect(error).toMatchObject({ name: "WebAuthnVerificationError", type: "WebAuthnVerificationError", kind: "signIn" })
    // The exported class keeps Auth.js's kind.
    expect(new WebAuthnVerificationError().kind).toBe("error")
  })
})

describe("configuration", () => {
  it("refuses WebAuthn without experimental.enableWebAuthn", async () => {
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [Passkey], logger: captureLogger().logger }
    const response = await Auth(new Request(`${ORIGIN}/auth/webauthn-options/passkey`), config)
    expect(response.status).toBe(500)
  })
})

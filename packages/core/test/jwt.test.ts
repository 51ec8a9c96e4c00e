import { afterEach, describe, expect, it, vi } from "vitest"
import { decode, encode, getToken } from "@portcullis/core/jwt"
import * as authjs from "@auth/core/jwt"
import { Auth as AuthjsAuth } from "@auth/core"
import AuthjsCredentials from "@auth/core/providers/credentials"
import { SECRET, Browser, credentialsConfig, direct, ada } from "./helpers.js"

const salt = "authjs.session-token"

afterEach(() => {
  vi.useRealTimers()
})

describe("encode and decode (spec §4.6)", () => {
  it("round-trips a payload and adds iat, exp and jti", async () => {
    const token = await encode({ token: { sub: "42", name: "Ada" }, secret: SECRET, salt })
    expect(token.split(".")).toHaveLength(5) // compact JWE
    const header = JSON.parse(Buffer.from(token.split(".")[0]!, "base64url").toString())
    expect(header).toMatchObject({ alg: "dir", enc: "A256CBC-HS512" })
    expect(header.kid).toMatch(/^[\w-]{86}$/) // SHA-512 thumbprint, base64url
    const payload = await decode({ token, secret: SECRET, salt })
    expect(payload).toMatchObject({ sub: "42", name: "Ada" })
    expect(payload!.exp! - payload!.iat!).toBe(30 * 24 * 60 * 60)
    expect(payload!.jti).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("gives every token a fresh jti", async () => {
    const a = await decode({ token: await encode({ token: {}, secret: SECRET, salt }), secret: SECRET, salt })
    const b = await decode({ token: await encode({ token: {}, secret: SECRET, salt }), secret: SECRET, salt })
    expect(a!.jti).not.toBe(b!.jti)
  })

  it("rotates secrets: new tokens use the first, old ones still open", async () => {
    const old = await encode({ token: { sub: "1" }, secret: "old-secret-old-secret-old-secret-x", salt })
    const rotated = ["new-secret-new-secret-new-secret-x", "old-secret-old-secret-old-secret-x"]
    expect(await decode({ token: old, secret: rotated, salt })).toMatchObject({ sub: "1" })
    const fresh = await encode({ token: { sub: "2" }, secret: rotated, salt })
    expect(await decode({ token: fresh, secret: "new-secret-new-secret-new-secret-x", salt })).toMatchObject({ sub: "2" })
    await expect(decode({ token: fresh, secret: "old-secret-old-secret-old-secret-x", salt })).rejects.toThrow()
    // Once the old secret is dropped, its tokens are dead.
    await expect(decode({ token: old, secret: ["new-secret-new-secret-new-secret-x"], salt })).rejects.toThrow()
  })

  it("rejects an expired token (past the 15 s tolerance)", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt, maxAge: 60 })
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(Date.now() + 70_000)
    expect(await decode({ token, secret: SECRET, salt })).toMatchObject({ sub: "1" })
    vi.setSystemTime(Date.now() + 10_000)
    await expect(decode({ token, secret: SECRET, salt })).rejects.toThrow()
  })

  it("rejects under another salt: a token made for one purpose never opens as another", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt })
    await expect(decode({ token, secret: SECRET, salt: "authjs.state" })).rejects.toThrow()
  })

  it("rejects tampered, truncated and garbage tokens", async () => {
    const token = await encode({ token: { sub: "1" }, secret: SECRET, salt })
    const parts = token.split(".")
    const flip = (s: string) => (s[5] === "A" ? s.slice(0, 5) + "B" + s.slice(6) : s.slice(0, 5) + "A" + s.slice(6))
    for (const bad of [
      [parts[0], parts[1], flip(parts[2]!), parts[3], parts[4]].join("."),
      [parts[0], parts[1], parts[2], flip(parts[3]!), parts[4]].join("."),
      [parts[0], parts[1], parts[2], parts[3], flip(parts[4]!)].join("."),
      parts.slice(0, 4).join("."),
      "not.a.token.at.all",
      "eyJhbGciOiJub25lIn0.e30.",
      "....",
    ]) {
      await expect(decode({ token: bad, secret: SECRET, salt })).rejects.toThrow()
    }
  })

  it("refuses an unexpected content encryption (A128GCM)", async () => {
    const { EncryptJWT } = await import("jose")
    const token = await new EncryptJWT({ sub: "1" }).setProtectedHeader({ alg: "dir", enc: "A128GCM" }).encrypt(new Uint8Array(16))
    await expect(decode({ token, secret: SECRET, salt })).rejects.toThrow()
  })
})

describe("wire compatibility with Auth.js v5 (@auth/core)", () => {
  it("decodes a token issued by Auth.js, and Auth.js decodes ours", async () => {
    const theirs = await authjs.encode({ token: { sub: "7", name: "Grace" }, secret: SECRET, salt })
    expect(await decode({ token: theirs, secret: SECRET, salt })).toMatchObject({ sub: "7", name: "Grace" })
    const ours = await encode({ token: { sub: "8", name: "Linus" }, secret: SECRET, salt })
    expect(await authjs.decode({ token: ours, secret: SECRET, salt })).toMatchObject({ sub: "8", name: "Linus" })
  })

  it("keeps a user signed in across the switch: an Auth.js session cookie works here and back", async () => {
    const authjsConfig = {
      secret: SECRET,
      trustHost: true,
      basePath: "/auth",
      providers: [AuthjsCredentials({ credentials: { username: {}, password: {} }, authorize: async (c: any) => (c.username === ada.username && c.password === ada.password ? { id: "user-ada", name: "Ada Lovelace", email: "ada@example.com" } : null) })],
    }
    const browser = new Browser((request) => AuthjsAuth(request, authjsConfig as any))
    expect((await browser.signIn()).status).toBe(302)
    expect(browser.sessionCookie()).toBeTruthy()

    // Same browser, same secret, now served by Portcullis.
    const ours = new Browser(direct(credentialsConfig()))
    for (const [k, v] of browser.jar) ours.jar.set(k, v)
    expect((await ours.session()).user).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" })

    // And a Portcullis session read by Auth.js's getToken.
    const fresh = new Browser(direct(credentialsConfig()))
    await fresh.signIn()
    const token = await authjs.getToken({ req: { headers: { cookie: fresh.cookieHeader() } }, secret: SECRET })
    expect(token).toMatchObject({ sub: "user-ada", email: "ada@example.com" })
  })

  it("accepts Auth.js's CSRF cookie (same format: token|sha256(token+secret))", async () => {
    const authjsConfig = { secret: SECRET, trustHost: true, basePath: "/auth", providers: [] }
    const theirs = new Browser((request) => AuthjsAuth(request, authjsConfig as any))
    const token = await theirs.csrfToken()
    const ours = new Browser(direct(credentialsConfig()))
    for (const [k, v] of theirs.jar) ours.jar.set(k, v)
    expect(await ours.csrfToken()).toBe(token)
  })
})

describe("getToken (spec §4.6)", () => {
  it("reads the session cookie, or an Authorization: Bearer header, and returns raw on request", async () => {
    const token = await encode({ token: { sub: "9" }, secret: SECRET, salt })
    const viaCookie = await getToken({ req: new Request("http://localhost/", { headers: { cookie: `${salt}=${token}` } }), secret: SECRET })
    expect(viaCookie).toMatchObject({ sub: "9" })
    const viaBearer = await getToken({ req: { headers: { authorization: `Bearer ${token}` } }, secret: SECRET })
    expect(viaBearer).toMatchObject({ sub: "9" })
    expect(await getToken({ req: { headers: { authorization: `Bearer ${token}` } }, raw: true })).toBe(token)
    expect(await getToken({ req: { headers: {} }, secret: SECRET })).toBeNull()
    expect(await getToken({ req: { headers: { authorization: "Bearer %E0%A4%A" } }, secret: SECRET })).toBeNull()
  })

  it("uses the __Secure- cookie name when secureCookie is set", async () => {
    const name = "__Secure-authjs.session-token"
    const token = await encode({ token: { sub: "10" }, secret: SECRET, salt: name })
    const req = { headers: { cookie: `${name}=${token}` } }
    expect(await getToken({ req, secret: SECRET, secureCookie: true })).toMatchObject({ sub: "10" })
    expect(await getToken({ req, secret: SECRET, secureCookie: false })).toBeNull()
  })

  it("reassembles chunked cookies", async () => {
    const big = await encode({ token: { sub: "11", blob: "x".repeat(9000) }, secret: SECRET, salt })
    const chunks = big.match(/.{1,3936}/g)!
    const cookie = chunks.map((c, i) => `${salt}.${i}=${c}`).join("; ")
    expect(await getToken({ req: { headers: { cookie } }, secret: SECRET })).toMatchObject({ sub: "11" })
  })
})

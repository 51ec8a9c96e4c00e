/**
 * The public `decode` settles as Auth.js's does (issue #16 C.8): `null` only for a missing
 * token, a rejection when no secret opens it (or it is malformed or expired); `getToken`
 * turns those rejections into `null`, as Auth.js's does. Each case runs through both.
 */
import { describe, expect, it } from "vitest"
import * as authjs from "@auth/core/jwt"
import { decode, encode, getToken } from "@portcullis/core/jwt"

const SECRET = "a-test-secret-with-at-least-32-characters"
const OTHER = "another-secret-with-at-least-32-characters"
const salt = "authjs.session-token"

/** How a promise settles: its value, or that it rejected. */
const settle = (p: Promise<unknown>) => p.then((value) => ({ value }), () => "rejected" as const)

describe("decode settles as Auth.js's decode", () => {
  it.each([
    ["no secret in the list matches the token's kid", async () => ({ token: await encode({ token: { sub: "1" }, secret: SECRET, salt }), secret: [OTHER] })],
    ["a garbage token", async () => ({ token: "not.a.token.at.all", secret: SECRET })],
    ["hostile: a token with alg none", async () => ({ token: "eyJhbGciOiJub25lIn0.e30.", secret: SECRET })],
  ])("%s: rejects", async (_name, make) => {
    const { token, secret } = await make()
    expect(await settle(decode({ token, secret, salt }))).toBe("rejected")
    expect(await settle(authjs.decode({ token, secret, salt }))).toBe("rejected")
  })

  it("a missing token: null from both", async () => {
    expect(await decode({ token: undefined, secret: SECRET, salt })).toBeNull()
    expect(await authjs.decode({ token: undefined, secret: SECRET, salt })).toBeNull()
  })

  it("a token a listed secret opens: its payload from both", async () => {
    const token = await encode({ token: { sub: "2" }, secret: SECRET, salt })
    expect(await decode({ token, secret: [OTHER, SECRET], salt })).toMatchObject({ sub: "2" })
    expect(await authjs.decode({ token, secret: [OTHER, SECRET], salt })).toMatchObject({ sub: "2" })
  })
})

describe("getToken turns a token no secret opens into null, as Auth.js's does", () => {
  it("cookie and bearer token", async () => {
    const token = await encode({ token: { sub: "3" }, secret: SECRET, salt })
    for (const headers of [{ cookie: `${salt}=${token}` }, { authorization: `Bearer ${token}` }]) {
      expect(await getToken({ req: { headers }, secret: OTHER })).toBeNull()
      expect(await authjs.getToken({ req: { headers }, secret: OTHER })).toBeNull()
    }
  })
})

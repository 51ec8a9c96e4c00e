/**
 * What the app's code receives from the JWT session strategy, and what it may do with it:
 * an async jwt callback is awaited; a callback that changes its token in place changes
 * that request's answer only, never a remembered copy later checks are answered from; the
 * app's own encoder and decoder get every configured secret (rotation) and a token the
 * app's decoder opened is not re-issued on every check. And a registered session's record
 * is kept alive by the checks that confirm it, for `session.maxAge` from each.
 */
import { describe, expect, it } from "vitest"
import { encode, decode } from "@portcullis/core/jwt"
import type { JWT } from "@portcullis/core/jwt"
import { MemorySessionRegistry } from "@portcullis/memory-adapter"
import { SECRET } from "../helpers.js"
import { check, claimsOf, COOKIE, cookieOf, runtime, send } from "./jwt-support.js"

const DAY = 86_400

describe("the jwt callback", () => {
  it("an async one is awaited", async () => {
    const auth = runtime({ callbacks: { jwt: async ({ token }) => ({ ...token, name: "Ada (async)" }) } })
    const { session, claims } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(session?.user?.name).toBe("Ada (async)")
    expect(claims).toMatchObject({ name: "Ada (async)" })
  })

  it("one that changes its token in place changes that answer only, not the next check's", async () => {
    const seen: unknown[] = []
    const auth = runtime({
      callbacks: {
        jwt: ({ token }) => {
          seen.push(token.visits)
          token.visits = ((token.visits as number | undefined) ?? 0) + 1
          return token
        },
      },
    })
    const value = await cookieOf({ sub: "user-ada", name: "Ada" })
    await check(auth, value)
    await check(auth, value)
    await check(auth, value)
    expect(seen).toEqual([undefined, undefined, undefined])
  })
})

describe("the app's own encoder and decoder", () => {
  const secrets = [SECRET, "an-older-secret-with-at-least-32-characters"]

  it("get every configured secret, newest first", async () => {
    const given: unknown[] = []
    const auth = runtime({
      secret: secrets,
      jwt: {
        encode: async (params) => (given.push(["encode", params.secret]), encode(params)),
        decode: async (params) => (given.push(["decode", params.secret]), decode(params)),
      },
      callbacks: { jwt: ({ token }) => ({ ...token, role: "reader" }) },
    })
    const { session, cookie } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(session?.user?.name).toBe("Ada")
    expect(cookie).toBeTruthy()
    expect(given).toEqual([
      ["decode", secrets],
      ["encode", secrets],
    ])
  })

  it("with one secret, get that secret alone", async () => {
    const given: unknown[] = []
    const auth = runtime({
      jwt: {
        encode: async (params) => (given.push(params.secret), encode(params)),
        decode: async (params) => (given.push(params.secret), decode(params)),
      },
      callbacks: { jwt: ({ token }) => ({ ...token, role: "reader" }) },
    })
    await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(given).toEqual([SECRET, SECRET])
  })

  it("a token the app's decoder opened is not re-issued when nothing changed", async () => {
    const auth = runtime({ jwt: { encode, decode } })
    const { session, cookie } = await check(auth, await cookieOf({ sub: "user-ada", name: "Ada" }))
    expect(session?.user?.name).toBe("Ada")
    expect(cookie).toBeUndefined()
  })
})

describe("a registered session's record", () => {
  it("is extended to session.maxAge from each check that confirms it", async () => {
    const registry = new MemorySessionRegistry()
    const auth = runtime({ session: { registry, revocationCheckInterval: 0, maxAge: 2 * DAY } })
    const id = "c".repeat(32)
    const long = new Date(Date.now() - 1000)
    await registry.add({ id, userId: "user-ada", createdAt: long, lastSeenAt: long, expires: new Date(Date.now() + 60_000) })
    const value = await cookieOf({ sub: "user-ada", name: "Ada", pcl_sid: id, pcl_created: Math.floor(Date.now() / 1000) })
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
    const [record] = await registry.list("user-ada")
    expect(Math.abs(record!.expires.getTime() - (Date.now() + 2 * DAY * 1000))).toBeLessThan(5_000)
    expect((await check(auth, value)).session?.user?.name).toBe("Ada")
  })
})

describe("a cookie re-issued by the strategy", () => {
  it("is sealed for the session cookie's name, so the built-in decoder opens it", async () => {
    const auth = runtime({ callbacks: { jwt: ({ token }: { token: JWT }) => ({ ...token, role: "reader" }) } })
    const { cookie } = await send(auth, "/auth/session", await cookieOf({ sub: "user-ada" }))
    expect(await claimsOf(cookie!)).toMatchObject({ sub: "user-ada", role: "reader" })
    await expect(decode({ token: cookie!, secret: SECRET, salt: `${COOKIE}-other` })).rejects.toThrow()
  })
})

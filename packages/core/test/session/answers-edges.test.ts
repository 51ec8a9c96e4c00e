/**
 * The session lane at its edges (`lib/session/answers.ts`, `lib/http/session-check.ts`):
 * a database row at the very millisecond it expires, and a configuration whose origin is
 * fixed by AUTH_URL. The lane must answer exactly what the full check answers, and use its
 * short road wherever it may.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { resolve } from "../../src/lib/config/resolve.js"
import { SessionCheckParser } from "../../src/lib/http/session-check.js"
import { sessionAnswers } from "../../src/lib/session/answers.js"
import { encode } from "@portcullis/core/jwt"
import { credentialsConfig, SECRET } from "../helpers.js"

const COOKIE = "authjs.session-token"
const quiet = { error() {}, warn() {}, debug() {} }

async function check(config: AuthConfig, cookie: string) {
  const response = await Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie } }), config)
  return { status: response.status, headers: [...response.headers].filter(([name]) => name !== "date"), body: await response.text() }
}

afterEach(() => vi.useRealTimers())

describe("a database row at the millisecond it expires", () => {
  it("is over for the lane as for the full check, from an adapter that returns rows whatever their expiry (as Auth.js allows)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T12:00:00.000Z") })
    const memory = MemoryAdapter()
    const user = await memory.createUser!({ id: "u1", email: "ada@example.com", emailVerified: null, name: "Ada", image: null })
    const expires = new Date(Date.now() + 1000)
    const rows = new Map([
      ["lane-token", { sessionToken: "lane-token", userId: "u1", expires }],
      ["reference-token", { sessionToken: "reference-token", userId: "u1", expires }],
    ])
    // The expiry check is core's: this adapter leaves it out.
    const adapter = { ...memory, getSessionAndUser: async (token: string) => (rows.has(token) ? { session: { ...rows.get(token)! }, user } : null), deleteSession: async (token: string) => void rows.delete(token) }
    // An updateAge past maxAge (rows are never extended): "due" never covers the expiry then.
    const base = { logger: quiet, adapter, session: { strategy: "database" as const, maxAge: 60, updateAge: 3600 } }
    const lane = credentialsConfig(base)
    const reference = credentialsConfig({ ...base, events: { session: async () => {} } })
    // A first check has each configuration work out the origin: the lane runs from the next.
    await check(lane, "other=1")
    await check(reference, "other=1")
    vi.setSystemTime(expires)
    const laneAnswer = await check(lane, `${COOKIE}=lane-token`)
    const referenceAnswer = await check(reference, `${COOKIE}=reference-token`)
    expect(JSON.parse(JSON.stringify(laneAnswer).replaceAll("lane-token", "reference-token"))).toEqual(referenceAnswer)
    expect(laneAnswer.body).toBe("null")
  })
})

describe("a configuration whose origin AUTH_URL fixes", () => {
  it("answers session checks on the short road from the first request, as the site's trusted origin", () => {
    const config = resolve({ secret: SECRET, providers: [], trustHost: false }, { AUTH_URL: "https://site.example/auth" })
    const parser = new SessionCheckParser(config)
    expect(parser.origin(new Request("https://site.example/auth/session"))).toEqual({ origin: "https://site.example", trusted: true })
    // Only the exact session path, even there.
    expect(parser.origin(new Request("https://site.example/auth/session?x=1"))).toBeUndefined()
    expect(parser.origin(new Request("https://site.example/auth/session", { method: "POST" }))).toBeUndefined()
  })
})

describe("the lane's own answers (what makes it a short road)", () => {
  it("answers a JWT check itself: no cookie, a token once opened, then the same token from memory", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T12:00:00.000Z") })
    const lane = sessionAnswers(resolve(credentialsConfig({ logger: quiet }), {}))!
    const token = await encode({ token: { name: "Ada", email: "ada@example.com", sub: "u1" }, secret: SECRET, salt: COOKIE })
    const expected = JSON.stringify({ user: { name: "Ada", email: "ada@example.com" }, expires: "2026-12-28T12:00:00.000Z" })
    expect(lane.answer(null, false)).toBe("null")
    expect(lane.answer("other=1", false)).toBe("null")
    // The first check opens the token (a promise); the next is answered at once, from memory.
    expect(await lane.answer(`${COOKIE}=${token}`, false)).toBe(expected)
    expect(lane.answer(`${COOKIE}=${token}`, false)).toBe(expected)
    // Over https the cookie has its secure name: the plain one is no session there.
    expect(lane.answer(`${COOKIE}=${token}`, true)).toBe("null")
    const secure = await encode({ token: { name: "Ada", email: "ada@example.com", sub: "u1" }, secret: SECRET, salt: `__Secure-${COOKIE}` })
    expect(await lane.answer(`__Secure-${COOKIE}=${secure}`, true)).toBe(expected)
  })

  it("leaves to the full check an empty value and anything like a chunked cookie", () => {
    const lane = sessionAnswers(resolve(credentialsConfig({ logger: quiet }), {}))!
    expect(lane.answer(`${COOKIE}=`, false)).toBeUndefined()
    expect(lane.answer(`${COOKIE}.0=abc`, false)).toBeUndefined()
  })
})

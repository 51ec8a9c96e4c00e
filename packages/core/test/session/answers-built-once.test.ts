/**
 * What makes the JWT session lane cheap (`JwtSessionAnswers` in `lib/session/answers.ts`):
 * a token's answer is built once and kept with the verified token, and the session cookie's
 * name and cache scope are worked out once per cookie variant. A check answered from memory
 * then costs a cookie read and a map lookup — no JSON built, no cookie options looked up.
 * Without these the answers would be the same, only slower, so only counting shows them.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { encode } from "@portcullis/core/jwt"
import { resolve } from "../../src/lib/config/resolve.js"
import { sessionAnswers } from "../../src/lib/session/answers.js"
import { credentialsConfig, SECRET } from "../helpers.js"

const COOKIE = "authjs.session-token"
const quiet = { error() {}, warn() {}, debug() {} }
const claims = { name: "Ada", email: "ada@example.com", sub: "u1" }
const expected = JSON.stringify({ user: { name: "Ada", email: "ada@example.com" }, expires: "2026-12-28T12:00:00.000Z" })

afterEach(() => {
  vi.restoreAllMocks()
  vi.useRealTimers()
})

describe("a token's answer", () => {
  it("is built on the check that opens the token, and read back from memory after", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T12:00:00.000Z") })
    const config = resolve(credentialsConfig({ logger: quiet }), {})
    const lane = sessionAnswers(config)!
    const cookie = `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}`
    expect(await lane.answer(cookie, false)).toBe(expected)
    const stringify = vi.spyOn(JSON, "stringify")
    for (let i = 0; i < 3; i++) expect(lane.answer(cookie, false)).toBe(expected)
    expect(stringify).not.toHaveBeenCalled()
  })

  it("is kept with the verified token, where the next check finds it", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T12:00:00.000Z") })
    const config = resolve(credentialsConfig({ logger: quiet }), {})
    const lane = sessionAnswers(config)!
    const raw = await encode({ token: claims, secret: SECRET, salt: COOKIE })
    expect(await lane.answer(`${COOKIE}=${raw}`, false)).toBe(expected)
    const scope = config.sessionMemory.saltState(COOKIE, config.secrets).scope
    expect(config.sessionMemory.verifiedTokens.peek(scope, raw)?.answer).toBe(expected)
  })
})

describe("the session cookie's name and cache scope", () => {
  it("are worked out once per cookie variant (plain and secure), not per check", async () => {
    const config = resolve(credentialsConfig({ logger: quiet }), {})
    const lane = sessionAnswers(config)!
    const cookies = vi.spyOn(config, "cookies")
    for (let i = 0; i < 3; i++) {
      expect(lane.answer("other=1", false)).toBe("null")
      expect(lane.answer("other=1", true)).toBe("null")
    }
    expect(cookies.mock.calls).toEqual([[false], [true]])
  })
})

import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { resolve } from "../../src/lib/config/resolve.js"
import { sessionAnswers } from "../../src/lib/session/answers.js"
import { credentialsConfig, SECRET } from "../helpers.js"

/**
 * A session check whose answer only the token decides is answered from the verified-token
 * cache (`SessionAnswers`). Every such answer must be byte for byte what the full check
 * (`jwtStrategy.read`) answers. The reference here is the same configuration with a no-op
 * `session` event, which keeps every check on the full path.
 */
const COOKIE = "authjs.session-token"
const quiet = { error() {}, warn() {}, debug() {} }

function pair(extra: Partial<AuthConfig> = {}) {
  const lane = credentialsConfig({ logger: quiet, ...extra })
  const reference = credentialsConfig({ logger: quiet, ...extra, events: { session: async () => {} } })
  return { lane, reference }
}

const claims = { name: "Ada Lovelace", email: "ada@example.com", picture: "https://example.com/ada.png", sub: "user-ada" }

function mint(payload: Record<string, unknown> = claims, secret: string | string[] = SECRET, salt = COOKIE) {
  return encode({ token: payload, secret, salt })
}

async function check(config: AuthConfig, cookie: string | undefined, origin = "http://localhost:3000") {
  const response = await Auth(new Request(`${origin}/auth/session`, cookie === undefined ? {} : { headers: { cookie } }), config)
  return { status: response.status, headers: [...response.headers], body: await response.text() }
}

/** The lane's answer after the cookie was checked once (cached), and the full check's. */
async function both(configs: ReturnType<typeof pair>, cookie: string | undefined, origin?: string) {
  await check(configs.lane, cookie, origin)
  await check(configs.reference, cookie, origin)
  return { lane: await check(configs.lane, cookie, origin), reference: await check(configs.reference, cookie, origin) }
}

afterEach(() => vi.useRealTimers())

describe("remembered session answers", () => {
  it("answer what the full check answers, for every kind of token claims", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const configs = pair()
    const payloads = [
      claims,
      { ...claims, picture: null },
      { sub: "user-ada" },
      { ...claims, name: "Ådä \u{1F511} \"quoted\" </script>" },
      { ...claims, extra: { nested: [1, 2, 3] } },
      { ...claims, email: null, name: null },
    ]
    for (const payload of payloads) {
      const token = await mint(payload)
      const { lane, reference } = await both(configs, `${COOKIE}=${token}`)
      expect(lane, JSON.stringify(payload)).toEqual(reference)
      expect(lane.headers.some(([name]) => name === "set-cookie")).toBe(false)
    }
  })

  it("answer what the full check answers for every way a browser may send the cookie", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const configs = pair()
    const token = await mint()
    const other = await mint({ ...claims, name: "Someone Else" })
    const headers = [
      `${COOKIE}=${token}`,
      `a=1; ${COOKIE}=${token}; b=2`,
      `  ${COOKIE} =  ${token}  `,
      `${COOKIE}="${token}"`,
      `${COOKIE}=${token}; ${COOKIE}=${other}`,
      `${COOKIE}=${other}; ${COOKIE}=${token}`,
      `x${COOKIE}=${token}`,
      `${COOKIE}=`,
      `${COOKIE}`,
      `other=1`,
      `${COOKIE}.0=${token.slice(0, 100)}; ${COOKIE}.1=${token.slice(100)}`,
      `${COOKIE}=${token}; ${COOKIE}.0=junk`,
      `${COOKIE}=${token.replace(/\./g, "%2E")}`,
      `${COOKIE}=%E0%A4%A`,
      ``,
    ]
    for (const header of headers) {
      const { lane, reference } = await both(configs, header)
      expect(lane, header).toEqual(reference)
    }
    const none = await both(configs, undefined)
    expect(none.lane).toEqual(none.reference)
    expect(none.lane.body).toBe("null")
  })

  it("answer under the secure cookie name on https, and never across the two names", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const configs = pair()
    const secureToken = await mint(claims, SECRET, `__Secure-${COOKIE}`)
    const plainToken = await mint()
    for (const [header, origin] of [
      [`__Secure-${COOKIE}=${secureToken}`, "https://app.example"],
      [`${COOKIE}=${plainToken}`, "https://app.example"],
      [`__Secure-${COOKIE}=${secureToken}`, "http://localhost:3000"],
    ] as const) {
      const { lane, reference } = await both(configs, header, origin)
      expect(lane, `${origin} ${header.slice(0, 30)}`).toEqual(reference)
    }
  })

  it("leave a token past updateAge to the full check, which re-issues it", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const configs = pair()
    const cookie = `${COOKIE}=${await mint()}`
    await both(configs, cookie)
    vi.setSystemTime(new Date("2026-11-27T12:00:00.000Z"))
    const { lane, reference } = await both(configs, cookie)
    expect(lane.headers.filter(([name]) => name === "set-cookie").length).toBe(1)
    expect(lane.status).toBe(reference.status)
    expect(JSON.parse(lane.body)).toEqual(JSON.parse(reference.body))
  })

  it("forget a token at its expiry: the check after it answers signed out and clears the cookie", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const configs = pair({ session: { strategy: "jwt", maxAge: 3600, updateAge: 7200 } })
    const cookie = `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE, maxAge: 3600 })}`
    expect(JSON.parse((await both(configs, cookie)).lane.body)).not.toBeNull()
    vi.setSystemTime(new Date("2026-11-25T13:01:00.000Z")) // past exp and the 15 s clock tolerance
    const { lane, reference } = await both(configs, cookie)
    expect(lane).toEqual(reference)
    expect(lane.body).toBe("null")
  })

  it("never answer a token opened with a rotated-out secret: every check re-issues it", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const configs = pair({ secret: ["the-new-secret-with-at-least-32-characters", SECRET] })
    const cookie = `${COOKIE}=${await mint()}`
    for (let i = 0; i < 3; i++) {
      const { lane, reference } = await both(configs, cookie)
      expect(lane.headers.filter(([name]) => name === "set-cookie").length).toBe(1)
      expect(JSON.parse(lane.body)).toEqual(JSON.parse(reference.body))
    }
  })
})

describe("session answers for tokens not yet remembered", () => {
  it("the first check of each kind of token answers what the full check answers", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const fresh = await mint()
    const rotated = await mint(claims, SECRET)
    const tampered = fresh.slice(0, 20) + (fresh[20] === "A" ? "g" : "A") + fresh.slice(21)
    vi.setSystemTime(new Date("2026-11-20T12:00:00.000Z"))
    const stale = await mint()
    vi.setSystemTime(new Date("2026-11-25T12:00:00.000Z"))
    const cases: [string, string, Partial<AuthConfig>][] = [
      ["fresh", fresh, {}],
      ["stale (re-issued)", stale, {}],
      ["from a rotated-out secret (re-issued)", rotated, { secret: ["the-new-secret-with-at-least-32-characters", SECRET] }],
      ["tampered (refused, cookie cleared)", tampered, {}],
      ["not a token", "not-a-token", {}],
    ]
    for (const [label, token, extra] of cases) {
      // Fresh configurations: nothing remembered, so both checks decrypt.
      const { lane, reference } = pair(extra)
      const laneAnswer = await check(lane, `${COOKIE}=${token}`)
      const referenceAnswer = await check(reference, `${COOKIE}=${token}`)
      expect(laneAnswer.status, label).toBe(referenceAnswer.status)
      expect(JSON.parse(laneAnswer.body), label).toEqual(JSON.parse(referenceAnswer.body))
      // Re-issued cookies carry a fresh random IV, so compare which cookies are set, and how.
      const shape = (headers: [string, string][]) => headers.map(([n, v]) => (n === "set-cookie" ? `${v.split("=")[0]} ${v.split(";").slice(1).join(";")}` : `${n}: ${v}`))
      expect(shape(laneAnswer.headers), label).toEqual(shape(referenceAnswer.headers))
    }
  })
})

describe("remembered session answers under attack", () => {
  it("a tampered copy of a remembered token is checked in full and refused", async () => {
    const configs = pair()
    const token = await mint()
    await both(configs, `${COOKIE}=${token}`)
    // Never the last character of a segment: its low bits are padding, and a change there
    // may decode to the very same bytes (a token that is genuinely the same).
    const positions = [0, 10, token.indexOf(".") + 1, Math.floor(token.length / 2), token.length - 2].map((at) => (token[at + 1] === "." ? at - 1 : at))
    for (const at of positions) {
      const flipped = token.slice(0, at) + (token[at] === "A" ? "g" : "A") + token.slice(at + 1)
      const { lane, reference } = await both(configs, `${COOKIE}=${flipped}`)
      expect(lane, `position ${at}`).toEqual(reference)
      expect(lane.body).toBe("null")
    }
    // The genuine token is still answered.
    expect(JSON.parse((await check(configs.lane, `${COOKIE}=${token}`)).body).user.email).toBe("ada@example.com")
  })

  it("a token remembered by one configuration is not an answer for another", async () => {
    const first = credentialsConfig({ logger: quiet })
    const second = credentialsConfig({ logger: quiet, secret: "another-secret-with-at-least-32-characters" })
    const cookie = `${COOKIE}=${await mint()}`
    expect(JSON.parse((await check(first, cookie)).body).user.name).toBe("Ada Lovelace")
    expect(JSON.parse((await check(first, cookie)).body).user.name).toBe("Ada Lovelace")
    const other = await check(second, cookie)
    expect(other.body).toBe("null")
  })

  it("a session of a user not yet verified (T67) is confirmed with the adapter on every check", async () => {
    const adapter = MemoryAdapter()
    const user = await adapter.createUser!({ id: "u1", email: "eve@example.com", emailVerified: null, name: "Eve" })
    const config = credentialsConfig({ logger: quiet, adapter, session: { strategy: "jwt" } })
    const cookie = `${COOKIE}=${await mint({ sub: user.id, email: user.email, name: "Eve", pcl_unverified: 1 })}`
    const first = await check(config, cookie)
    expect(JSON.parse(first.body)?.user?.email).toBe("eve@example.com")
    await adapter.deleteUser!(user.id)
    // The deleted user's session must not be answered from memory.
    const after = await check(config, cookie)
    expect(after.body).toBe("null")
  })
})

describe("50 session checks at once", () => {
  it("each answer is the full check's, cold and remembered alike", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const configs = pair()
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => mint({ ...claims, name: `user ${i}` })))
    const expected = await Promise.all(tokens.map((t) => check(configs.reference, `${COOKIE}=${t}`)))
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(tokens.map((t) => check(configs.lane, `${COOKIE}=${t}`)))
      expect(answers).toEqual(expected)
    }
    const same = await Promise.all(Array.from({ length: 50 }, () => check(configs.lane, `${COOKIE}=${tokens[7]}`)))
    for (const answer of same) expect(answer).toEqual(expected[7])
  })
})

describe("database session answers", () => {
  /** Two configurations on one adapter: the lane's, and the full check's (a session event). */
  async function databasePair(extra: Partial<AuthConfig> = {}) {
    const reads = { count: 0 }
    const memory = MemoryAdapter()
    const adapter = {
      ...memory,
      getSessionAndUser(token: string) {
        reads.count++
        return memory.getSessionAndUser!(token)
      },
    }
    await memory.createUser!({ id: "u1", email: "ada@example.com", emailVerified: null, name: "Ada", image: null })
    const base = { logger: quiet, adapter, session: { strategy: "database" as const }, ...extra }
    return { lane: credentialsConfig(base), reference: credentialsConfig({ ...base, events: { session: async () => {} } }), memory, reads }
  }

  async function row(memory: ReturnType<typeof MemoryAdapter>, token: string, expires: Date) {
    await memory.createSession!({ sessionToken: token, userId: "u1", expires })
  }

  it("answer what the full check answers: live, missing, expired and due rows", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const now = Date.now()
    const day = 86_400_000
    for (const [label, expires] of [
      ["live", new Date(now + 30 * day)],
      ["missing", undefined],
      ["expired", new Date(now - 1000)],
      ["due for extension", new Date(now + 28 * day)],
    ] as const) {
      const { lane, reference, memory, reads } = await databasePair()
      // Each configuration gets its own row, so a write by one cannot change the other's answer.
      if (expires) {
        await row(memory, "lane-token", expires)
        await row(memory, "reference-token", expires)
      }
      reads.count = 0
      const laneAnswer = await check(lane, `${COOKIE}=lane-token`)
      expect(reads.count, `${label}: the store is read once`).toBe(1)
      const referenceAnswer = await check(reference, `${COOKIE}=reference-token`)
      // The same answer, but for the cookie's own token in a re-set cookie.
      expect(JSON.parse(JSON.stringify(laneAnswer).replaceAll("lane-token", "reference-token")), label).toEqual(referenceAnswer)
    }
  })

  it("answer what the full check answers for hashed tokens and every cookie shape", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const { lane, reference, memory } = await databasePair({ session: { strategy: "database", hashTokens: true } })
    const { sha256Hex } = await import("../../src/lib/crypto.js")
    await row(memory, await sha256Hex("tok"), new Date(Date.now() + 30 * 86_400_000))
    for (const header of [`${COOKIE}=tok`, `a=b; ${COOKIE}="tok"`, `${COOKIE}=`, `other=1`, ``, `${COOKIE}=nope`]) {
      const laneAnswer = await check(lane, header)
      expect(laneAnswer, header).toEqual(await check(reference, header))
    }
    expect(JSON.parse((await check(lane, `${COOKIE}=tok`)).body).user.email).toBe("ada@example.com")
    expect(await check(lane, undefined)).toEqual(await check(reference, undefined))
  })

  it("a store that fails answers 503, cookie kept, exactly as the full check does", async () => {
    const failing = {
      ...MemoryAdapter(),
      getSessionAndUser() {
        throw new Error("connection refused")
      },
    }
    const base = { logger: quiet, adapter: failing, session: { strategy: "database" as const } }
    const lane = await check(credentialsConfig(base), `${COOKIE}=tok`)
    const reference = await check(credentialsConfig({ ...base, events: { session: async () => {} } }), `${COOKIE}=tok`)
    expect(lane.status).toBe(503)
    expect(lane).toEqual(reference)
  })

  it("a store that hangs is given up after adapterTimeout: 503, as the full check", async () => {
    const hanging = { ...MemoryAdapter(), getSessionAndUser: () => new Promise<null>(() => {}) }
    const base = { logger: quiet, adapter: hanging, adapterTimeout: 50, session: { strategy: "database" as const } }
    const lane = await check(credentialsConfig(base), `${COOKIE}=tok`)
    expect(lane.status).toBe(503)
    expect(lane).toEqual(await check(credentialsConfig({ ...base, events: { session: async () => {} } }), `${COOKIE}=tok`))
  })

  it("50 checks of one session at once share one read; 50 of different sessions each get their own answer", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const { lane, reference, memory, reads } = await databasePair()
    const expires = new Date(Date.now() + 30 * 86_400_000)
    for (let i = 0; i < 50; i++) await row(memory, `t${i}`, expires)
    const expected = await check(reference, `${COOKIE}=t0`)
    reads.count = 0
    const same = await Promise.all(Array.from({ length: 50 }, () => check(lane, `${COOKIE}=t0`)))
    for (const answer of same) expect(answer).toEqual(expected)
    expect(reads.count).toBeLessThanOrEqual(50)
    const distinct = await Promise.all(Array.from({ length: 50 }, (_, i) => check(lane, `${COOKIE}=t${i}`)))
    for (const answer of distinct) expect(answer).toEqual(expected)
  })
})

describe("which configurations have remembered answers", () => {
  const base = credentialsConfig()
  const cases: [string, Partial<AuthConfig>, boolean][] = [
    ["JWT sessions, nothing that sees the token", {}, true],
    ["a jwt callback", { callbacks: { jwt: ({ token }) => token } }, false],
    ["a session callback", { callbacks: { session: ({ session }) => session } }, false],
    ["a session event", { events: { session: async () => {} } }, false],
    ["a session registry", { session: { strategy: "jwt", registry: new MemorySessionRegistry() } }, false],
    ["absoluteMaxAge", { session: { strategy: "jwt", absoluteMaxAge: 86_400 } }, false],
    ["provider tokens refreshed in the cookie", { tokenRefresh: { jwt: true } }, false],
    ["the app's own token decoder", { jwt: { decode: async () => null } }, false],
    ["database sessions", { adapter: MemoryAdapter(), session: { strategy: "database" } }, true],
    ["database sessions with a session callback", { adapter: MemoryAdapter(), session: { strategy: "database" }, callbacks: { session: ({ session }) => session } }, false],
    ["database sessions with absoluteMaxAge", { adapter: MemoryAdapter(), session: { strategy: "database", absoluteMaxAge: 86_400 } }, false],
  ]
  for (const [label, extra, expected] of cases) {
    it(`${label}: ${expected ? "yes" : "no"}`, () => {
      expect(sessionAnswers(resolve({ ...base, ...extra }, {})) !== undefined).toBe(expected)
    })
  }
})

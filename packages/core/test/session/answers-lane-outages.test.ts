/**
 * Database session checks that go through the lane (`lib/session/answers.ts`) and end in
 * the full check: a store that fails or hangs, rows that are missing, expired or due. The
 * lane runs only once a configuration has worked out the request's origin, so each
 * configuration here answers one check first; then the lane's answer must be the full
 * check's, status, headers and body.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig } from "../helpers.js"

const COOKIE = "authjs.session-token"
const DAY = 86_400_000
const quiet = { error() {}, warn() {}, debug() {} }

async function check(config: AuthConfig, cookie: string) {
  const response = await Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie } }), config)
  return { status: response.status, headers: [...response.headers].filter(([name]) => name !== "date"), body: await response.text() }
}

/** The lane's configuration and the full check's (a session event), each past its first check. */
async function warmed(base: Partial<AuthConfig>) {
  const lane = credentialsConfig({ logger: quiet, ...base })
  const reference = credentialsConfig({ logger: quiet, ...base, events: { session: async () => {} } })
  await check(lane, "other=1")
  await check(reference, "other=1")
  return { lane, reference }
}

afterEach(() => vi.useRealTimers())

describe("a store that cannot answer, through the lane", () => {
  it("that fails: 503, the cookie kept, as the full check answers", async () => {
    const reads = { count: 0 }
    const adapter = {
      ...MemoryAdapter(),
      getSessionAndUser() {
        reads.count++
        throw new Error("connection refused")
      },
    }
    const { lane, reference } = await warmed({ adapter, session: { strategy: "database" } })
    const answer = await check(lane, `${COOKIE}=tok`)
    expect(answer.status).toBe(503)
    // Asked once: the full check continues from the lane's reading.
    expect(reads.count).toBe(1)
    expect(answer).toEqual(await check(reference, `${COOKIE}=tok`))
  })

  it("that hangs: given up after adapterTimeout, 503, as the full check answers", async () => {
    const adapter = { ...MemoryAdapter(), getSessionAndUser: () => new Promise<null>(() => {}) }
    const { lane, reference } = await warmed({ adapter, adapterTimeout: 50, session: { strategy: "database" } })
    const answer = await check(lane, `${COOKIE}=tok`)
    expect(answer.status).toBe(503)
    expect(answer).toEqual(await check(reference, `${COOKIE}=tok`))
  })
})

describe("rows the lane hands on, through the lane", () => {
  for (const [label, offset] of [
    ["missing", undefined],
    ["expired", -1000],
    ["due for extension", 28 * DAY],
    ["live", 30 * DAY],
  ] as const) {
    it(`${label}: the full check's answer, its cookie re-set for the cookie's own token`, async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T12:00:00.000Z") })
      const memory = MemoryAdapter()
      await memory.createUser!({ id: "u1", email: "ada@example.com", emailVerified: null, name: "Ada", image: null })
      if (offset !== undefined) {
        for (const token of ["lane-token", "reference-token"]) await memory.createSession!({ sessionToken: token, userId: "u1", expires: new Date(Date.now() + offset) })
      }
      const { lane, reference } = await warmed({ adapter: memory, session: { strategy: "database" } })
      const laneAnswer = await check(lane, `${COOKIE}=lane-token`)
      const referenceAnswer = await check(reference, `${COOKIE}=reference-token`)
      expect(JSON.parse(JSON.stringify(laneAnswer).replaceAll("lane-token", "reference-token"))).toEqual(referenceAnswer)
    })
  }
})

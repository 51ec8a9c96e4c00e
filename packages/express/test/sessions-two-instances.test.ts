// Issue 19's "done when" for session management: a session revoked on one instance is
// refused on the other within the documented bound — database sessions at once, JWT
// sessions within `revocationCheckInterval` — with two app processes (chaos/app.ts:
// Express + Portcullis) sharing one PostgreSQL, then one Redis, each a throwaway server of
// the test's own. The apps run the built packages (npm test builds).
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { serviceAvailable } from "@portcullis/adapter-test"
import { freePort, missingBinaries, startThrowawayPostgres, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { startApp, type AppProcess } from "../../../chaos/child.ts"
import { CHAOS_PASSWORD } from "../../../chaos/app-constants.ts"
import { SESSION_COOKIE, sessionUser, setCookies, signIn } from "../../../chaos/http.ts"

const stores = [
  { store: "postgres" as const, binaries: "postgres" as const, start: startThrowawayPostgres, hint: "install PostgreSQL (initdb, postgres)" },
  { store: "redis" as const, binaries: "redis" as const, start: startThrowawayRedis, hint: "install redis-server" },
]
/** The JWT instances' staleness bound, in seconds: short, so the test waits it out. */
const INTERVAL = 1

interface Listed {
  id: string
  current: boolean
  userAgent: string | null
}

/** A signed-in browser's requests to the app's session-management routes. */
async function cookiesWithCsrf(base: string, token: string): Promise<{ cookie: string; csrfToken: string }> {
  const response = await fetch(`${base}/auth/csrf`, { headers: { cookie: `${SESSION_COOKIE}=${token}` } })
  const { csrfToken } = (await response.json()) as { csrfToken: string }
  const csrfCookie = [...setCookies(response)].find(([name]) => name.includes("csrf-token"))!
  return { cookie: `${SESSION_COOKIE}=${token}; ${csrfCookie[0]}=${encodeURIComponent(csrfCookie[1])}`, csrfToken }
}

async function list(base: string, token: string): Promise<Listed[]> {
  const response = await fetch(`${base}/sessions`, { headers: { cookie: `${SESSION_COOKIE}=${token}` } })
  expect(response.status).toBe(200)
  return (await response.json()) as Listed[]
}

async function revoke(base: string, token: string, id: string): Promise<{ status: number; revoked?: boolean }> {
  const { cookie, csrfToken } = await cookiesWithCsrf(base, token)
  const response = await fetch(`${base}/sessions/revoke`, {
    method: "POST",
    headers: { cookie, origin: base, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ id, csrfToken }),
  })
  const body = (await response.json().catch(() => ({}))) as { revoked?: boolean }
  return { status: response.status, ...body }
}

for (const { store, binaries, start, hint } of stores) {
  const gate = await serviceAvailable({ name: `${store} binaries`, url: "tcp://127.0.0.1:0", start: hint }, async () => {
    const missing = missingBinaries(binaries)
    if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
  })

  gate.describe(`session management across two app instances on one ${store}`, () => {
    let server: ThrowawayServer
    const apps: Record<"database" | "jwt", AppProcess[]> = { database: [], jwt: [] }

    beforeAll(async () => {
      server = await start()
      // One after the other: the first runs the migrations, the others find them done.
      for (const mode of ["database", "jwt"] as const) {
        for (let i = 0; i < 2; i++) {
          const env = mode === "jwt" ? { CHAOS_SESSIONS: "jwt", CHAOS_REVOCATION_INTERVAL: String(INTERVAL) } : {}
          apps[mode].push(await startApp(store, server.url, await freePort(), env))
        }
      }
    }, 90_000)
    afterAll(async () => {
      await Promise.all([...apps.database, ...apps.jwt].map((app) => app.stop()))
      await server?.close()
    })

    describe("database sessions", () => {
      it("a session revoked on instance A is refused on instance B at once", async () => {
        const [a, b] = apps.database.map((app) => app.base) as [string, string]
        const laptop = (await signIn(a, "db-roamer", CHAOS_PASSWORD))!
        const phone = (await signIn(b, "db-roamer", CHAOS_PASSWORD))!
        expect((await sessionUser(b, phone)).user?.name).toBe("db-roamer")

        const listed = await list(a, laptop)
        expect(listed).toHaveLength(2)
        const phoneId = listed.find((s) => !s.current)!.id
        expect(await revoke(a, laptop, phoneId)).toMatchObject({ status: 200, revoked: true })
        expect((await sessionUser(b, phone)).user).toBeNull()
        expect((await sessionUser(a, phone)).user).toBeNull()
        expect((await sessionUser(b, laptop)).user?.name).toBe("db-roamer")
      })

      it("another user's session id revokes nothing, on either instance", async () => {
        const [a, b] = apps.database.map((app) => app.base) as [string, string]
        const victim = (await signIn(a, "db-victim", CHAOS_PASSWORD))!
        const attacker = (await signIn(b, "db-attacker", CHAOS_PASSWORD))!
        const victimId = (await list(a, victim))[0]!.id
        expect(await revoke(b, attacker, victimId)).toMatchObject({ status: 200, revoked: false })
        expect((await sessionUser(a, victim)).user?.name).toBe("db-victim")
      })
    })

    describe("JWT sessions with a registry on the store", () => {
      it(`a session revoked on instance A is refused on instance B within revocationCheckInterval (${INTERVAL} s), and at once on A`, async () => {
        const [a, b] = apps.jwt.map((app) => app.base) as [string, string]
        const laptop = (await signIn(a, "jwt-roamer", CHAOS_PASSWORD))!
        const phone = (await signIn(b, "jwt-roamer", CHAOS_PASSWORD))!
        // B has now confirmed the phone's session: it trusts that for up to INTERVAL.
        expect((await sessionUser(b, phone)).user?.name).toBe("jwt-roamer")

        const listed = await list(a, laptop)
        expect(listed).toHaveLength(2)
        const phoneId = listed.find((s) => !s.current)!.id
        const revokedAt = Date.now()
        expect(await revoke(a, laptop, phoneId)).toMatchObject({ status: 200, revoked: true })
        expect((await sessionUser(a, phone)).user).toBeNull()
        // The bound, plus slack for two processes on a busy machine.
        await expect.poll(async () => (await sessionUser(b, phone)).user, { timeout: INTERVAL * 1000 + 4000, interval: 100 }).toBeNull()
        expect(Date.now() - revokedAt).toBeLessThan(INTERVAL * 1000 + 4000)
        // A replay of the revoked cookie stays refused, on both.
        expect((await sessionUser(a, phone)).user).toBeNull()
        expect((await sessionUser(b, phone)).user).toBeNull()
        expect((await sessionUser(b, laptop)).user?.name).toBe("jwt-roamer")
      })

      it("another user's session id revokes nothing", async () => {
        const [a, b] = apps.jwt.map((app) => app.base) as [string, string]
        const victim = (await signIn(a, "jwt-victim", CHAOS_PASSWORD))!
        const attacker = (await signIn(b, "jwt-attacker", CHAOS_PASSWORD))!
        const victimId = (await list(a, victim))[0]!.id
        expect(await revoke(b, attacker, victimId)).toMatchObject({ status: 200, revoked: false })
        expect((await sessionUser(a, victim)).user?.name).toBe("jwt-victim")
      })

      it("50 concurrent sign-ins across both instances are 50 listed sessions on either", async () => {
        const [a, b] = apps.jwt.map((app) => app.base) as [string, string]
        const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => signIn(i % 2 ? a : b, "jwt-crowd", CHAOS_PASSWORD)))
        expect(tokens.every(Boolean)).toBe(true)
        expect(await list(a, tokens[0]!)).toHaveLength(50)
        expect(await list(b, tokens[1]!)).toHaveLength(50)
      })
    })
  })
}

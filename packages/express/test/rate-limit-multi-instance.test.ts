// Issue 19's "done when" for rate limiting: 30 wrong passwords for one account from one
// address get RateLimited answers (429 for fetch clients, the sign-in page's message for
// forms) once the limit is reached, and the right password during the lockout is refused
// the same way — on both of two app processes (chaos/app.ts: Express + Portcullis with
// CHAOS_RATE_LIMIT=1) that share the counters in Redis, and again in PostgreSQL (the SQL
// store). Each store is a throwaway server of the test's own. The apps run the built packages.
import { afterAll, beforeAll, expect, it } from "vitest"
import { serviceAvailable } from "@portcullis/adapter-test"
import { freePort, missingBinaries, startThrowawayPostgres, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { startApp, type AppProcess } from "../../../chaos/child.ts"
import { CHAOS_PASSWORD } from "../../../chaos/app-constants.ts"

const stores = [
  { store: "redis" as const, binaries: "redis" as const, start: startThrowawayRedis, hint: "install redis-server" },
  { store: "postgres" as const, binaries: "postgres" as const, start: startThrowawayPostgres, hint: "install PostgreSQL (initdb, postgres)" },
]

/** One credentials sign-in: a fresh CSRF cookie and token, then the form post (or a fetch with X-Auth-Return-Redirect). */
async function attempt(base: string, username: string, password: string, json = false) {
  const csrf = await fetch(`${base}/auth/csrf`)
  const cookie = csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ")
  const { csrfToken } = (await csrf.json()) as { csrfToken: string }
  const response = await fetch(`${base}/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...(json && { "x-auth-return-redirect": "1" }) },
    body: new URLSearchParams({ username, password, csrfToken }),
  })
  const text = await response.text()
  const target = response.headers.get("location") ?? (json && response.headers.get("content-type")?.includes("json") ? (JSON.parse(text) as { url?: string }).url : undefined)
  const error = target ? new URL(target).searchParams.get("error") : null
  const signedIn = response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !/max-age=0/i.test(c))
  return { status: response.status, error, retryAfter: response.headers.get("retry-after"), signedIn, body: json ? text : "" }
}

for (const { store, binaries, start, hint } of stores) {
  const gate = await serviceAvailable({ name: `${store} binaries`, url: "tcp://127.0.0.1:0", start: hint }, async () => {
    const missing = missingBinaries(binaries)
    if (missing.length) throw new Error(`not installed: ${missing.join(", ")}`)
  })

  gate.describe(`the lockout across two app processes on one ${store}`, () => {
    let server: ThrowawayServer
    let apps: AppProcess[] = []

    beforeAll(async () => {
      server = await start()
      // One after the other: the first runs the migrations (the rate_limits table too).
      apps.push(await startApp(store, server.url, await freePort(), { CHAOS_RATE_LIMIT: "1" }))
      apps.push(await startApp(store, server.url, await freePort(), { CHAOS_RATE_LIMIT: "1" }))
    }, 90_000)
    afterAll(async () => {
      await Promise.all(apps.map((app) => app.stop()))
      await server?.close()
      apps = []
    })

    it("30 wrong passwords alternating between the instances: 5 are checked, 25 are RateLimited; the right password is then refused the same way on both", async () => {
      const [a, b] = apps.map((app) => app.base) as [string, string]
      const errors: (string | null)[] = []
      for (let i = 0; i < 30; i++) errors.push((await attempt(i % 2 ? b : a, "victim", "wrong")).error)
      expect(errors.slice(0, 5)).toEqual(Array(5).fill("CredentialsSignin"))
      expect(errors.slice(5)).toEqual(Array(25).fill("RateLimited"))

      for (const base of [a, b]) {
        const form = await attempt(base, "victim", CHAOS_PASSWORD)
        expect(form).toMatchObject({ status: 302, error: "RateLimited", signedIn: false })
        expect(Number(form.retryAfter)).toBeGreaterThan(0)
        const fetchClient = await attempt(base, "victim", CHAOS_PASSWORD, true)
        expect(fetchClient).toMatchObject({ status: 429, error: "RateLimited", signedIn: false })
        expect(Number(fetchClient.retryAfter)).toBeGreaterThan(0)
        // A wrong password now gets exactly the same answer as the right one.
        const wrong = await attempt(base, "victim", "wrong", true)
        expect({ ...wrong, retryAfter: "any" }).toEqual({ ...fetchClient, retryAfter: "any" })
      }
      // The lockout is per account: another user signs in on either instance.
      expect((await attempt(b, "bystander", CHAOS_PASSWORD)).signedIn).toBe(true)
      expect(apps.map((app) => app.crashes)).toEqual([0, 0])
    }, 60_000)

    it("50 wrong passwords at once, split over both instances, count exactly: 5 are checked, 45 refused", async () => {
      const [a, b] = apps.map((app) => app.base) as [string, string]
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(i % 2 ? b : a, "burst-victim", "wrong")))
      const errors = results.map((r) => r.error)
      expect(errors.filter((e) => e === "CredentialsSignin")).toHaveLength(5)
      expect(errors.filter((e) => e === "RateLimited")).toHaveLength(45)
    }, 60_000)

    it("an account nobody has gets the same answers, in the same order, on both instances", async () => {
      const [a, b] = apps.map((app) => app.base) as [string, string]
      const known: unknown[] = []
      const unknown: unknown[] = []
      for (let i = 0; i < 7; i++) {
        const k = await attempt(i % 2 ? b : a, "known-user", "wrong", true)
        const u = await attempt(i % 2 ? b : a, "no-such-user-here", "wrong", true)
        known.push({ ...k, retryAfter: k.retryAfter === null ? null : "set" })
        unknown.push({ ...u, retryAfter: u.retryAfter === null ? null : "set" })
      }
      expect(unknown).toEqual(known)
      expect((known.at(-1) as { status: number }).status).toBe(429)
    }, 60_000)
  })
}

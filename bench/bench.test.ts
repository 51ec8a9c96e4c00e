/**
 * Keeps the bench harness from rotting: the Portcullis bench server (built packages, real
 * node:http, random port) signs a user in and serves their session, and the database-session
 * server serves a session row and reports its adapter writes. No timing here.
 */
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBenchDatabase, type BenchDatabase } from "./db.ts"
import { getSession, isBenchSession, signIn, startServer, startSignInDriver, type RunningServer, type SignInDriver } from "./harness.ts"
import { Rotation } from "./sessions.ts"
import { BENCH_USER, BURST_VERIFY_ENV, DB_ENV, sessionToken } from "./shared.ts"

const builtCore = fileURLToPath(new URL("../packages/core/dist/index.js", import.meta.url))

describe("bench server (portcullis)", () => {
  let server: RunningServer

  beforeAll(async () => {
    if (!existsSync(builtCore)) throw new Error("packages/core/dist is missing: the bench servers run the built packages; run `npm run build` first")
    server = await startServer("portcullis")
  })

  afterAll(async () => {
    await server?.stop()
  })

  it("signs in with credentials and serves the authenticated session without re-issuing it", async () => {
    const cookie = await signIn(server.url)
    expect(cookie).toMatch(/^authjs\.session-token(\.\d+)?=/)

    const first = await getSession(server.url, cookie)
    expect(first.status).toBe(200)
    expect(first.session?.user).toMatchObject({ name: BENCH_USER.name, email: BENCH_USER.email })
    expect(isBenchSession(first.session)).toBe(true)
    expect(first.reissued).toBe(false)

    // The same cookie again (the bench's hot path) still answers the same user.
    const again = await getSession(server.url, cookie)
    expect(again.status).toBe(200)
    expect(isBenchSession(again.session)).toBe(true)
  })

  it.each(["baseline-session", "baseline-native-session"] as const)("the session-shaped floor %s answers with exactly the headers of Portcullis's session answer, and the bench session", async (target) => {
    const cookie = await signIn(server.url)
    const floor = await startServer(target)
    try {
      const headersOf = async (url: string) => {
        const response = await fetch(`${url}/auth/session`, { headers: { cookie } })
        const body = await response.json()
        // What node:http adds per response (date, keep-alive, length or chunking) is not the answer's.
        const own = [...response.headers].filter(([name]) => !["date", "connection", "keep-alive", "content-length", "transfer-encoding"].includes(name))
        return { status: response.status, body, own }
      }
      const real = await headersOf(server.url)
      const shaped = await headersOf(floor.url)
      expect(shaped.status).toBe(real.status)
      expect(shaped.own).toEqual(real.own)
      expect(isBenchSession(shaped.body)).toBe(true)
      expect(Object.keys(shaped.body as object)).toEqual(Object.keys(real.body as object))
    } finally {
      await floor.stop()
    }
  })

  it("the calibration floor answers as the floor does, after its computation", async () => {
    const [plain, busy] = await Promise.all([startServer("baseline"), startServer("baseline-busy")])
    try {
      for (const running of [plain, busy]) {
        const response = await fetch(`${running.url}/`)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toBe("application/json")
        expect(await response.text()).toBe("{}")
      }
    } finally {
      await Promise.all([plain.stop(), busy.stop()])
    }
  })

  it("the plain node:http and Express floors answer as the floor does, with no Web Request/Response", async () => {
    const [plain, bare] = await Promise.all([startServer("baseline-native"), startServer("baseline-express")])
    try {
      for (const [running, path] of [[plain, "/"], [bare, "/page"]] as const) {
        const response = await fetch(`${running.url}${path}`)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toMatch(/^application\/json/)
        expect(await response.text()).toBe("{}")
      }
    } finally {
      await Promise.all([plain.stop(), bare.stop()])
    }
  })

  it("the burst row's server signs in by an argon2id-checked password, refuses a wrong one, and serves the session", async () => {
    const burst = await startServer("portcullis-burst", { timeoutMs: 60_000 })
    try {
      const cookie = await signIn(burst.url)
      expect(isBenchSession((await getSession(burst.url, cookie)).session)).toBe(true)
      const csrf = await fetch(`${burst.url}/auth/csrf`)
      const { csrfToken } = (await csrf.json()) as { csrfToken: string }
      const wrong = await fetch(`${burst.url}/auth/callback/credentials`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ") },
        body: new URLSearchParams({ csrfToken, username: "bench", password: "not-the-password" }),
      })
      await wrong.arrayBuffer()
      expect(wrong.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !c.startsWith("authjs.session-token=;"))).toBe(false)
    } finally {
      await burst.stop()
    }
  })

  it("the burst row's sign-in process counts each phase's sign-ins, and the comparing server refuses a wrong password too", async () => {
    const compared = await startServer("portcullis-burst", { timeoutMs: 60_000, env: { [BURST_VERIFY_ENV]: "compare" } })
    let driver: SignInDriver | undefined
    try {
      const csrf = await fetch(`${compared.url}/auth/csrf`)
      const { csrfToken } = (await csrf.json()) as { csrfToken: string }
      const headers = { "content-type": "application/x-www-form-urlencoded", cookie: csrf.headers.getSetCookie().map((c) => c.split(";")[0]).join("; "), "x-auth-return-redirect": "1" }
      const url = `${compared.url}/auth/callback/credentials`
      const body = (password: string) => new URLSearchParams({ csrfToken, callbackUrl: `${compared.url}/`, username: "bench", password }).toString()
      /** One phase of `ms`: its counts. */
      const phase = async (running: SignInDriver, ms: number) => {
        running.start()
        await new Promise((resolve) => setTimeout(resolve, ms))
        return running.stop()
      }
      driver = await startSignInDriver({ url, headers, body: body("bench-password"), rate: 50 })
      const first = await phase(driver, 300)
      expect(first.ok).toBeGreaterThan(3)
      expect(first.failed).toBe(0)
      // A phase's counts are its own: the next starts from zero.
      const second = await phase(driver, 100)
      expect(second.ok).toBeLessThan(first.ok)
      driver.close()
      driver = await startSignInDriver({ url, headers, body: body("not-the-password"), rate: 50 })
      const wrong = await phase(driver, 200)
      expect(wrong.ok).toBe(0)
      expect(wrong.failed).toBeGreaterThan(0)
    } finally {
      driver?.close()
      await compared.stop()
    }
  })

  it("answers an anonymous session for a request without the cookie", async () => {
    const anonymous = await getSession(server.url, "")
    expect(anonymous.status).toBe(200)
    expect(isBenchSession(anonymous.session)).toBe(false)
  })
})

describe("bench server (portcullis-sqlite, database sessions)", () => {
  let database: BenchDatabase
  let server: RunningServer

  beforeAll(async () => {
    database = await createBenchDatabase("sqlite")
  })

  afterAll(async () => {
    await server?.stop()
    await database?.close()
  })

  it("serves the session row written through the adapter, without writing to the database", async () => {
    const cookie = await database.newSession()
    server = await startServer("portcullis-sqlite", { env: { [DB_ENV]: JSON.stringify(database.spec) } })

    const first = await getSession(server.url, cookie)
    expect(first.status).toBe(200)
    expect(isBenchSession(first.session)).toBe(true)
    // 30 days left and updateAge 24 h: neither a new cookie nor an updateSession.
    expect(first.reissued).toBe(false)
    expect(isBenchSession((await getSession(server.url, cookie)).session)).toBe(true)

    await server.stop()
    expect(server.stats?.writes).toEqual({})
  })
})

describe("session rotation (many users, not one)", () => {
  it("sends every cookie once before any comes back, and keeps its place across loads", () => {
    const cookies = Array.from({ length: 5 }, (_, i) => `c${i}`)
    const rotation = new Rotation(cookies)
    const warmUp = Array.from({ length: 3 }, () => rotation.next())
    const measured = Array.from({ length: 7 }, () => rotation.next())
    expect([...warmUp, ...measured]).toEqual([...cookies, ...cookies].slice(0, 10))
    expect(new Set([...warmUp, ...measured.slice(0, 2)]).size).toBe(5)
    expect(rotation.sent).toBe(10)
  })

  it("gives each database session index its own token, the same in runner and server", () => {
    const tokens = new Set(Array.from({ length: 1000 }, (_, i) => sessionToken("run", i)))
    expect(tokens.size).toBe(1000)
    expect(sessionToken("run", 7)).toBe(sessionToken("run", 7))
  })
})

/**
 * `GET /auth/session` through the Express middleware is answered by core's session lane
 * without a Web `Request` (`sessionCheckAnswer`) when it can. Every answer — status,
 * headers, body, cookies set — must be the Web path's: the reference is a server with the
 * same configuration plus a no-op `session` event, which keeps every check on it. Real
 * Express servers, real HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import express from "express"
import type { AuthConfig } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import { getSession } from "@portcullis/express"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig, SECRET } from "../../core/test/helpers.js"
import { expressServer } from "./support.js"

const COOKIE = "authjs.session-token"
const quiet = { error() {}, warn() {}, debug() {} }
const claims = { name: "Ada Lovelace", email: "ada@example.com", picture: null, sub: "user-ada" }

type Running = Awaited<ReturnType<typeof expressServer>>

async function answer(server: Running, cookie: string | undefined, path = "/auth/session", extra: Record<string, string> = {}) {
  const response = await fetch(`${server.origin}${path}`, { headers: { ...(cookie !== undefined && { cookie }), ...extra } })
  // Re-issued cookies carry a fresh IV: compare their names and attributes. The framing
  // (Content-Length or chunked) is the server's choice, not the answer.
  const headers = [...response.headers].filter(([name]) => name !== "date" && name !== "etag" && name !== "content-length" && name !== "transfer-encoding")
    .map(([name, value]) => (name === "set-cookie" ? `${name}: ${value.split("=")[0]} ${value.split(";").slice(1).join(";")}` : `${name}: ${value}`))
  return { status: response.status, headers, body: await response.text() }
}

function pageRoute(config: AuthConfig) {
  return (app: express.Express) => {
    app.get("/page", async (req, res, next) => {
      try {
        res.json(await getSession(req, config))
      } catch (error) {
        next(error)
      }
    })
  }
}

describe("Express GET /auth/session without a Web Request", () => {
  const servers: Running[] = []
  let native: Running
  let web: Running
  let nativeDb: Running
  let webDb: Running
  const adapters = [MemoryAdapter(), MemoryAdapter()]

  beforeAll(async () => {
    const jwt = credentialsConfig({ logger: quiet })
    const jwtRef = credentialsConfig({ logger: quiet, events: { session: async () => {} } })
    native = await expressServer(jwt, pageRoute(jwt))
    web = await expressServer(jwtRef, pageRoute(jwtRef))
    const day = 24 * 60 * 60 * 1000
    // One moment for both stores' rows: read per adapter, a millisecond boundary between the
    // two once gave the "live" rows expiries 1 ms apart, and the answers differed by it.
    const seeded = Date.now()
    for (const adapter of adapters) {
      await adapter.createUser!({ id: "user-ada", name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
      await adapter.createSession!({ sessionToken: "live", userId: "user-ada", expires: new Date(seeded + 30 * day) })
      await adapter.createSession!({ sessionToken: "due", userId: "user-ada", expires: new Date(seeded + 20 * day) })
      await adapter.createSession!({ sessionToken: "expired", userId: "user-ada", expires: new Date(seeded - 1000) })
    }
    const db = credentialsConfig({ logger: quiet, adapter: adapters[0], session: { strategy: "database" } })
    const dbRef = credentialsConfig({ logger: quiet, adapter: adapters[1], session: { strategy: "database" }, events: { session: async () => {} } })
    nativeDb = await expressServer(db, pageRoute(db))
    webDb = await expressServer(dbRef, pageRoute(dbRef))
    servers.push(native, web, nativeDb, webDb)
  })

  afterAll(async () => {
    for (const server of servers) await server.close()
  })

  it("answers JWT checks as the Web path does: valid, stale, tampered, chunked, absent, with a query", async () => {
    const fresh = await encode({ token: claims, secret: SECRET, salt: COOKIE })
    const stale = await encode({ token: { ...claims, iat: Math.floor(Date.now() / 1000) - 3 * 86400 }, secret: SECRET, salt: COOKIE })
    const tampered = fresh.slice(0, 30) + (fresh[30] === "A" ? "g" : "A") + fresh.slice(31)
    const cookies: (string | undefined)[] = [undefined, "", "theme=dark", `${COOKIE}=${fresh}`, `${COOKIE}=${stale}`, `${COOKIE}=${tampered}`, `${COOKIE}.0=${fresh.slice(0, 100)}; ${COOKIE}.1=${fresh.slice(100)}`, `${COOKIE}=garbage`]
    for (const cookie of cookies) {
      for (let i = 0; i < 2; i++) {
        expect(await answer(native, cookie), `${cookie} #${i}`).toEqual(await answer(web, cookie))
        expect(await answer(native, cookie, "/page"), `page ${cookie} #${i}`).toEqual(await answer(web, cookie, "/page"))
      }
    }
    expect(JSON.parse((await answer(native, `${COOKIE}=${fresh}`)).body).user.email).toBe("ada@example.com")
    // Not the lane's request: a query, the return-redirect header, a bad Host.
    expect(await answer(native, `${COOKIE}=${fresh}`, "/auth/session?x=1")).toEqual(await answer(web, `${COOKIE}=${fresh}`, "/auth/session?x=1"))
    expect(await answer(native, `${COOKIE}=${tampered}`, "/auth/session", { "x-auth-return-redirect": "1" })).toEqual(await answer(web, `${COOKIE}=${tampered}`, "/auth/session", { "x-auth-return-redirect": "1" }))
  })

  afterEach(() => vi.useRealTimers())

  it("answers database checks as the Web path does, and extends a due row once on each", async () => {
    // One clock for both servers: an extended row's expiry is counted from "now".
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
    for (const token of ["live", "due", "expired", "unknown"]) {
      for (let i = 0; i < 2; i++) expect(await answer(nativeDb, `${COOKIE}=${token}`), `${token} #${i}`).toEqual(await answer(webDb, `${COOKIE}=${token}`))
    }
    const [a, b] = await Promise.all(adapters.map((adapter) => adapter.getSessionAndUser!("due")))
    expect(a!.session.expires.getTime()).toBeGreaterThan(Date.now() + 29 * 86400_000)
    expect(a!.session.expires.getTime()).toBe(b!.session.expires.getTime())
  })
})

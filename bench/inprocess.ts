/**
 * `node bench/inprocess.ts [case…]`: CPU µs per `Auth()` call without HTTP, for profiling
 * what lies between the floor and an answer. Each call builds the `Request` as the bench
 * adapter builds it (headers appended one by one from a raw list, as autocannon sends
 * them) and consumes the `Response` as the adapter does (headers walked, `Set-Cookie`
 * read, body read), with 10 callers in flight; CPU from `process.cpuUsage()`.
 *
 * Cases: floor, shape (the floor with a session check's request cookie, headers and body), jwt-1, jwt-20000,
 * jwt-untraced-<n> (the JWT check with `telemetry: false`: set against jwt-<n>, what the
 * OpenTelemetry instrumentation costs with no SDK registered), db-memory-20000, db-sqlite-20000, and the same with an
 * `authjs-` prefix for @auth/core (e.g. `authjs-jwt-20000`; one Auth.js case per process:
 * a second Auth.js configuration in the same process answers a configuration error). Without arguments: the
 * Portcullis cases and the floor. Knobs (env): INPROC_CALLS (measured calls per case,
 * default 20,000), INPROC_WARMUP (calls before measuring, default 20,000), INPROC_REPEAT
 * (measurements per case, default 3: the table shows each).
 *
 * `base-<case>` runs a case on another build (`INPROC_BASE=<dir>` holding copies of
 * `packages/core/dist` as `core/` and `packages/memory-adapter/dist` as `memory/`), for
 * before/after figures in one process: `jwt-1 base-jwt-1 jwt-1 base-jwt-1`.
 *
 * Run it with `--cpu-prof` to see where the time goes. It uses the built packages; it is a
 * profiling aid, not part of `npm run bench` (which measures over real HTTP).
 */
import { Auth as authjsAuth } from "@auth/core"
import { Auth as portcullisAuth } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { responseParts } from "./adapter.ts"
import { authjsConfig, authjsDbConfig, portcullisConfig, portcullisDbConfig } from "./configs.ts"
import { createBenchDatabase, openDb } from "./db.ts"
import { databaseCookies, mintJwtCookies, newRunId, Rotation } from "./sessions.ts"
import { BASE_PATH, BENCH_USER, sessionToken } from "./shared.ts"

const CALLS = Number(process.env.INPROC_CALLS ?? 20_000)
const WARMUP = Number(process.env.INPROC_WARMUP ?? 20_000)
const REPEAT = Number(process.env.INPROC_REPEAT ?? 3)
const CONCURRENCY = 10

type Handler = (request: Request) => Promise<Response> | Response

/** As `bench/adapter.ts` `toWebRequest`, from the raw headers autocannon sends. */
function request(url: string, cookie: string | undefined): Request {
  const raw = ["host", "127.0.0.1:3000", "connection", "keep-alive", ...(cookie ? ["cookie", cookie] : [])]
  const headers = new Headers()
  for (let i = 0; i < raw.length; i += 2) headers.append(raw[i]!, raw[i + 1]!)
  return new Request(url, { method: "GET", headers })
}

/** As `bench/adapter.ts` `sendWebResponse`, minus the socket. */
async function consume(response: Response): Promise<string> {
  const { body } = await responseParts(response)
  return body ? body.toString() : ""
}

async function drive(handler: Handler, url: string, rotation: Rotation | undefined, calls: number): Promise<void> {
  let left = calls
  const worker = async () => {
    while (left-- > 0) {
      const text = await consume(await handler(request(url, rotation?.next())))
      if (rotation && !text.includes(BENCH_USER.email)) throw new Error(`not the bench session: ${text.slice(0, 200)}`)
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
}

async function measure(handler: Handler, url: string, rotation: Rotation | undefined): Promise<number[]> {
  await drive(handler, url, rotation, WARMUP)
  const out: number[] = []
  for (let r = 0; r < REPEAT; r++) {
    const before = process.cpuUsage()
    await drive(handler, url, rotation, CALLS)
    const used = process.cpuUsage(before)
    out.push((used.user + used.system) / CALLS)
  }
  return out
}

/** Another build's Portcullis core and memory adapter, for `base-` cases (`INPROC_BASE=<dir>` with `core/` and `memory/` dist copies). */
async function baseBuild(): Promise<{ Auth: typeof portcullisAuth; MemoryAdapter: typeof MemoryAdapter }> {
  const dir = process.env.INPROC_BASE
  if (!dir) throw new Error("base- cases need INPROC_BASE=<dir holding core/ and memory/ dist copies>")
  const core = await import(`${dir}/core/index.js`)
  const memory = await import(`${dir}/memory/index.js`)
  return { Auth: core.Auth, MemoryAdapter: memory.MemoryAdapter }
}

async function setup(name: string): Promise<{ handler: Handler; rotation?: Rotation; close?: () => Promise<void> }> {
  const authjs = name.startsWith("authjs-")
  const base = name.startsWith("base-") ? await baseBuild() : undefined
  const rest = authjs ? name.slice("authjs-".length) : base ? name.slice("base-".length) : name
  const auth = (authjs ? authjsAuth : base ? base.Auth : portcullisAuth) as (request: Request, config: never) => Promise<Response>
  if (rest === "floor") {
    const headers = { "content-type": "application/json" }
    return { handler: () => new Response("{}", { headers }) }
  }
  if (rest === "shape") {
    // The floor with a session check's shape: the request carries a session cookie, the
    // answer has the session's five headers and body. What no session library can undercut.
    const headers = { "Content-Type": "application/json", "Cache-Control": "private, no-cache, no-store", Pragma: "no-cache", Expires: "0", Vary: "Cookie" }
    const body = JSON.stringify({ user: { name: BENCH_USER.name, email: BENCH_USER.email, image: null }, expires: new Date().toISOString() })
    return { handler: () => new Response(body, { headers }), rotation: new Rotation(await mintJwtCookies(1)) }
  }
  const match = /^(jwt|jwt-untraced|db-memory|db-sqlite)-(\d+)$/.exec(rest)
  if (!match) throw new Error(`unknown case ${name}`)
  const [, kind, count] = match
  const n = Number(count)
  if (kind === "jwt" || kind === "jwt-untraced") {
    const config = authjs ? authjsConfig() : portcullisConfig({ reissue: false, telemetry: kind === "jwt" })
    return { handler: (r) => auth(r, config as never), rotation: new Rotation(await mintJwtCookies(n)) }
  }
  const runId = newRunId()
  if (kind === "db-memory") {
    const adapter = (base?.MemoryAdapter ?? MemoryAdapter)()
    await adapter.createUser!({ ...BENCH_USER, emailVerified: null })
    const expires = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000)
    for (let i = 0; i < n; i++) await adapter.createSession!({ sessionToken: sessionToken(runId, i), userId: BENCH_USER.id, expires })
    const config = authjs ? authjsDbConfig(adapter) : portcullisDbConfig(adapter)
    return { handler: (r) => auth(r, config as never), rotation: new Rotation(databaseCookies(runId, n)) }
  }
  const database = await createBenchDatabase("sqlite")
  await database.seedSessions(runId, n)
  const db = openDb(database.spec)
  const adapter = SqlAdapter(db, { tables: database.spec.tables })
  const config = authjs ? authjsDbConfig(adapter) : portcullisDbConfig(adapter)
  return {
    handler: (r) => auth(r, config as never),
    rotation: new Rotation(databaseCookies(runId, n)),
    close: async () => {
      await db.destroy()
      await database.close()
    },
  }
}

const cases = process.argv.slice(2).length ? process.argv.slice(2) : ["floor", "shape", "jwt-1", "jwt-20000", "db-memory-20000", "db-sqlite-20000"]
console.log(`in-process CPU µs per call (Node ${process.versions.node}; ${CONCURRENCY} in flight; ${WARMUP} warm-up, ${REPEAT} × ${CALLS} measured)`)
for (const name of cases) {
  const { handler, rotation, close } = await setup(name)
  const url = `http://127.0.0.1:3000${name.endsWith("floor") ? "/" : `${BASE_PATH}/session`}`
  try {
    const figures = await measure(handler, url, rotation)
    console.log(`${name.padEnd(24)} ${figures.map((f) => f.toFixed(1).padStart(7)).join(" ")}   min ${Math.min(...figures).toFixed(1)}`)
  } finally {
    await close?.()
  }
}

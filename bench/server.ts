/**
 * One bench server per process: `node bench/server.ts <target> [port]`.
 *
 *   baseline            answers `{}` to everything (the adapter alone: the ceiling)
 *   baseline-session    answers a fixed session of the bench user with a session answer's
 *                       five headers (the ceiling for an answer of that shape)
 *   baseline-busy       the floor plus BUSY_US µs of computation per request: how much
 *                       throughput this machine loses to a known amount of in-process work
 *   portcullis          Portcullis `Auth(request, config)`, JWT sessions, default updateAge
 *   portcullis-reissue  the same with `session.updateAge: 0` (every check re-issues)
 *   authjs              @auth/core `Auth(request, config)` with the equivalent config
 *   portcullis-sqlite    Portcullis, database sessions through `SqlAdapter` on SQLite
 *   authjs-sqlite        @auth/core, the same adapter on the same database
 *   portcullis-postgres  the same two on PostgreSQL
 *   authjs-postgres
 *   portcullis-memory    Portcullis, database sessions through `MemoryAdapter`, seeded
 *   authjs-memory        @auth/core, the same adapter (each process seeds its own copy)
 *   express-portcullis   Express 5 + `ExpressAuth` on /auth and `GET /page` answering
 *   express-authjs       `getSession(req, config)` (@portcullis/express vs @auth/express)
 *   next-portcullis      node:http, `GET /page` answering the Pages Router's `auth(req, res)`
 *   next-authjs          (@portcullis/next vs next-auth 5), as `getServerSideProps` calls it
 *   baseline-native      plain node:http answering `{}` with `res.end`, no Web Request/Response:
 *                        the floor the Node-native session path is held to
 *   baseline-native-session  plain node:http answering a fixed session of the bench user with the
 *                        session answer's headers, as `baseline-session` does through the Web
 *                        adapter: the native path's floor for an answer of that shape
 *   baseline-express     Express 5 with `GET /page` answering `{}` (res.json): what Express itself
 *                        costs on top of plain node:http, for the native row's info line
 *   portcullis-redis     Portcullis, database sessions through `RedisAdapter` (scale rows;
 *                        `BENCH_REDIS={"url","prefix"}`)
 *   authjs-redis         @auth/core on `@auth/unstorage-adapter` over unstorage's Redis driver
 *   authjs-pg            @auth/core on `@auth/pg-adapter` (`BENCH_AUTHJS_PG={"url","schema"}`)
 *   node-portcullis      plain node:http answering `<basePath>/…` with core's Node path
 *                        (`handleNodeRequest` from `@portcullis/core/integration`): no Web
 *                        Request or Response; JWT sessions as `portcullis`
 *   portcullis-burst     Portcullis JWT sessions, the credentials provider verifying an
 *                        argon2id hash (`@portcullis/core/password`), as a password sign-in does
 *
 * With `BENCH_NODE_PATH=1`, portcullis-memory, -sqlite and -postgres are served by core's
 * Node path (`handleNodeRequest`) instead of the Web adapter.
 *
 * The memory targets seed `BENCH_SESSIONS=<n>:<runId>` sessions of the bench user (tokens
 * from `sessionToken`, 30 days left) before listening.
 * The database targets read the database's location from the `BENCH_DB` environment
 * variable (a `DbSpec`, see db.ts); the runner creates it and the session rows.
 *
 * Listens on 127.0.0.1 (port 0 = any free port) and prints `LISTENING <port>` once ready.
 * Exits cleanly on SIGTERM/SIGINT, so `--cpu-prof` gets to write its profile; just before,
 * it prints `STATS {"writes":{...},"memory":{...}}`: the adapter writes it made, by method,
 * and its memory after a full GC (when run with `--expose-gc`).
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http"
import { Auth as authjsAuth } from "@auth/core"
import { ExpressAuth as authjsExpressAuth, getSession as authjsGetSession } from "@auth/express"
import { Auth as portcullisAuth } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { ExpressAuth, getSession } from "@portcullis/express"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SqlAdapter } from "@portcullis/sql-adapter"
import express from "express"
import { serve, type WebHandler } from "./adapter.ts"
import { authjsConfig, authjsDbConfig, portcullisConfig, portcullisDbConfig, portcullisPasswordConfig } from "./configs.ts"
import { AUTHJS_PG_ENV, REDIS_ENV } from "./scale.ts"
import { countingAdapter, openDb, type DbSpec } from "./db.ts"
import { ARGON2_ENV, BURST_VERIFY_ENV, NODE_PATH_ENV, BASE_PATH, BENCH_CREDENTIALS, BENCH_USER, BUSY_US, DB_ENV, DB_TARGETS, EXPRESS_PAGE, NEXT_TARGETS, SESSION_ANSWER_HEADERS, SESSIONS_ENV, sessionToken, STATS_PREFIX, TARGETS, type Target } from "./shared.ts"

/** Adapter writes by method (database targets only). */
const writes: Record<string, number> = {}
let closeDb: (() => Promise<void>) | undefined

function dbAdapter(target: Target) {
  const raw = process.env[DB_ENV]
  if (!raw) throw new Error(`${target} needs the database in ${DB_ENV}`)
  const spec = JSON.parse(raw) as DbSpec
  if (spec.dialect !== DB_TARGETS[target]) throw new Error(`${target} got a ${spec.dialect} database`)
  const db = openDb(spec)
  closeDb = () => db.destroy()
  return countingAdapter(SqlAdapter(db, { tables: spec.tables }), writes)
}

/** A `MemoryAdapter` holding the bench user and `BENCH_SESSIONS` sessions, write-counted. */
async function memoryAdapter(target: Target): Promise<Adapter> {
  const [count, runId] = (process.env[SESSIONS_ENV] ?? "").split(":")
  const n = Number(count)
  if (!runId || !Number.isSafeInteger(n) || n < 1) throw new Error(`${target} needs ${SESSIONS_ENV}=<n>:<runId>`)
  const adapter = MemoryAdapter()
  await adapter.createUser!({ ...BENCH_USER, emailVerified: null })
  const expires = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000)
  for (let i = 0; i < n; i++) await adapter.createSession!({ sessionToken: sessionToken(runId, i), userId: BENCH_USER.id, expires })
  return countingAdapter(adapter, writes)
}

/**
 * The scale rows' Redis adapter, write-counted: Portcullis's `RedisAdapter`, or Auth.js's
 * `@auth/unstorage-adapter` on unstorage's Redis driver, on the store in `BENCH_REDIS`.
 */
async function redisAdapter(target: Target): Promise<Adapter> {
  const raw = process.env[REDIS_ENV]
  if (!raw) throw new Error(`${target} needs ${REDIS_ENV}`)
  const { url, prefix } = JSON.parse(raw) as { url: string; prefix: string }
  if (target === "portcullis-redis") {
    const { createRedisClient, RedisAdapter } = await import("@portcullis/redis-adapter")
    const client = createRedisClient(url, { logger: { error: (e) => console.error(e), warn: () => {} } })
    closeDb = async () => void client.disconnect()
    // The client fails commands fast while it is not connected (no offline queue): listen once it is.
    if (client.status !== "ready") await new Promise((resolve) => client.once("ready", resolve))
    return countingAdapter(RedisAdapter(client, { prefix }), writes)
  }
  const { createStorage } = await import("unstorage")
  const { default: redisDriver } = await import("unstorage/drivers/redis")
  const { UnstorageAdapter } = await import("@auth/unstorage-adapter")
  const storage = createStorage({ driver: redisDriver({ url, base: prefix }) })
  closeDb = () => storage.dispose()
  return countingAdapter(UnstorageAdapter(storage) as unknown as Adapter, writes)
}

/** The session floors' fixed answer: the bench user's session, 30 days left (`expires` fixed at start). */
function sessionAnswerBody(): string {
  const expires = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000).toISOString()
  return JSON.stringify({ user: { name: BENCH_USER.name, email: BENCH_USER.email, image: null }, expires })
}

async function handlerFor(target: Target): Promise<WebHandler> {
  switch (target) {
    case "baseline": {
      const headers = { "content-type": "application/json" }
      return () => new Response("{}", { headers })
    }
    case "baseline-session": {
      // What a session check answers (its body's `expires` fixed), without checking anything.
      const body = sessionAnswerBody()
      return () => new Response(body, { headers: SESSION_ANSWER_HEADERS })
    }
    case "baseline-busy": {
      const headers = { "content-type": "application/json" }
      const work = calibratedWork(BUSY_US)
      return () => {
        work()
        return new Response("{}", { headers })
      }
    }
    case "portcullis": {
      const config = portcullisConfig({ reissue: false })
      return (request) => portcullisAuth(request, config)
    }
    case "portcullis-telemetry-off": {
      const config = portcullisConfig({ reissue: false, telemetry: false })
      return (request) => portcullisAuth(request, config)
    }
    case "portcullis-reissue": {
      const config = portcullisConfig({ reissue: true })
      return (request) => portcullisAuth(request, config)
    }
    case "authjs": {
      const config = authjsConfig()
      return (request) => authjsAuth(request, config)
    }
    case "portcullis-sqlite":
    case "portcullis-postgres": {
      const config = (nodePathConfig = portcullisDbConfig(dbAdapter(target)))
      return (request) => portcullisAuth(request, config)
    }
    case "authjs-sqlite":
    case "authjs-postgres": {
      const config = authjsDbConfig(dbAdapter(target))
      return (request) => authjsAuth(request, config)
    }
    case "portcullis-memory": {
      const config = (nodePathConfig = portcullisDbConfig(await memoryAdapter(target)))
      return (request) => portcullisAuth(request, config)
    }
    case "authjs-memory": {
      const config = authjsDbConfig(await memoryAdapter(target))
      return (request) => authjsAuth(request, config)
    }
    case "portcullis-redis": {
      const config = portcullisDbConfig(await redisAdapter(target))
      return (request) => portcullisAuth(request, config)
    }
    case "authjs-redis": {
      const config = authjsDbConfig(await redisAdapter(target))
      return (request) => authjsAuth(request, config)
    }
    case "authjs-pg": {
      const raw = process.env[AUTHJS_PG_ENV]
      if (!raw) throw new Error(`${target} needs ${AUTHJS_PG_ENV}`)
      const { url, schema } = JSON.parse(raw) as { url: string; schema: string }
      const { default: pg } = await import("pg")
      const { default: PostgresAdapter } = await import("@auth/pg-adapter")
      // Auth.js's tables are unqualified (`sessions`, `users`): the run's schema comes first on the search path.
      const pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}` })
      closeDb = () => pool.end()
      const config = authjsDbConfig(countingAdapter(PostgresAdapter(pool) as unknown as Adapter, writes))
      return (request) => authjsAuth(request, config)
    }
    case "portcullis-burst": {
      const { hashPassword, verifyPassword } = await import("@portcullis/core/password")
      const implementation = process.env[ARGON2_ENV] as "native" | "wasm" | undefined
      const stored = await hashPassword(BENCH_CREDENTIALS.password, implementation ? { implementation } : {})
      // BURST_VERIFY_ENV=compare: the same sign-ins without the hashing (the row's info line).
      const compare = process.env[BURST_VERIFY_ENV] === "compare"
      const config = portcullisPasswordConfig(compare ? async (password) => password === BENCH_CREDENTIALS.password : (password) => verifyPassword(password, stored, implementation ? { implementation } : {}))
      return (request) => portcullisAuth(request, config)
    }
    case "express-portcullis":
    case "express-authjs":
    case "next-portcullis":
    case "next-authjs":
    case "baseline-native":
    case "baseline-native-session":
    case "baseline-express":
    case "node-portcullis":
    case "op-portcullis":
    case "op-oidc-provider":
      throw new Error(`${target} is not a Web handler`)
  }
}

/**
 * An Express app as its docs show it: the middleware on the base path, and a page route
 * reading the session with the integration's `getSession(req, config)` (one config object).
 */
function expressApp(target: Target) {
  const app = express()
  app.set("trust proxy", false)
  if (target === "express-portcullis") {
    const config = portcullisConfig({ reissue: false })
    app.use(BASE_PATH, ExpressAuth(config))
    app.get(EXPRESS_PAGE, async (req, res, next) => {
      try {
        const session = await getSession(req, config)
        res.json({ user: session?.user ?? null })
      } catch (error) {
        next(error)
      }
    })
  } else {
    const config = authjsConfig()
    app.use(BASE_PATH, authjsExpressAuth(config))
    app.get(EXPRESS_PAGE, async (req, res, next) => {
      try {
        const session = await authjsGetSession(req, config)
        res.json({ user: session?.user ?? null })
      } catch (error) {
        next(error)
      }
    })
  }
  return app
}

/**
 * The Pages Router's per-page call, `await auth(req, res)` (what `getServerSideProps` and
 * API routes run), on a plain node:http server: both integrations take Node's request and
 * response there. next-auth imports `next/server` without an extension, which only a
 * bundler resolves; a resolve hook adds it, as Next's own build would.
 */
async function nextPage(target: Target) {
  const { registerHooks } = await import("node:module")
  registerHooks({
    resolve: (specifier, context, next) => next(/^next\/(server|headers|navigation)$/.test(specifier) ? `${specifier}.js` : specifier, context),
  })
  type PagesAuth = (req: IncomingMessage, res: ServerResponse) => Promise<{ user?: unknown } | null>
  let auth: PagesAuth
  if (target === "next-portcullis") {
    const { default: NextAuth } = await import("@portcullis/next")
    auth = NextAuth(portcullisConfig({ reissue: false })).auth as unknown as PagesAuth
  } else {
    const { default: NextAuth } = await import("next-auth")
    auth = NextAuth(authjsConfig() as never).auth as unknown as PagesAuth
  }
  return async (req: IncomingMessage, res: ServerResponse) => {
    try {
      if (req.url !== EXPRESS_PAGE) return void res.writeHead(404).end()
      const session = await auth(req, res)
      res.setHeader("content-type", "application/json")
      res.end(JSON.stringify({ user: session?.user ?? null }))
    } catch (error) {
      console.error("bench server: auth(req, res) failed:", error)
      if (!res.headersSent) res.writeHead(500)
      res.end()
    }
  }
}

/** The config of the Portcullis database target being served, for `NODE_PATH_ENV`. */
let nodePathConfig: Parameters<typeof portcullisAuth>[1] | undefined

/** A node:http server answering with core's Node path (`handleNodeRequest`): no Web Request or Response. */
async function nodePathServer(createServer: typeof import("node:http").createServer, config: Parameters<typeof portcullisAuth>[1]): Promise<Server> {
  const { handleNodeRequest } = await import("@portcullis/core/integration")
  return createServer((req, res) => {
    handleNodeRequest(req, res, config).catch((error: unknown) => {
      console.error("bench server: handleNodeRequest failed:", error)
      if (!res.headersSent) res.writeHead(500)
      res.end()
    })
  })
}

/** The node:http server of `target`: the Web adapter around its handler, the Express app, or the Pages page. */
async function serverFor(target: Target): Promise<Server> {
  const { createServer } = await import("node:http")
  if (target === "express-portcullis" || target === "express-authjs") return createServer(expressApp(target))
  if (NEXT_TARGETS.includes(target)) return createServer(await nextPage(target))
  if (target === "baseline-express") {
    const app = express()
    app.set("trust proxy", false)
    app.get(EXPRESS_PAGE, (_req, res) => void res.json({}))
    return createServer(app)
  }
  if (target === "baseline-native") {
    // No Web Request or Response at all: what node:http itself costs for a small JSON answer.
    const headers = { "content-type": "application/json", "content-length": "2" }
    return createServer((_req, res) => void res.writeHead(200, headers).end("{}"))
  }
  if (target === "baseline-native-session") {
    // What a session check answers (as `baseline-session`), written as plain node:http writes it.
    const body = sessionAnswerBody()
    const headers = { ...SESSION_ANSWER_HEADERS, "content-length": String(Buffer.byteLength(body)) }
    return createServer((_req, res) => void res.writeHead(200, headers).end(body))
  }
  if (target === "node-portcullis") return nodePathServer(createServer, portcullisConfig({ reissue: false }))
  if (target === "op-portcullis" || target === "op-oidc-provider") return (await import("./op-server.ts")).opServer(target)
  const handler = await handlerFor(target)
  if (process.env[NODE_PATH_ENV] && nodePathConfig) return nodePathServer(createServer, nodePathConfig)
  return serve(handler)
}

const [target, portArg = "0"] = process.argv.slice(2)
if (!TARGETS.includes(target as Target)) {
  console.error(`usage: node bench/server.ts <${TARGETS.join("|")}> [port]`)
  process.exit(2)
}

const server = await serverFor(target as Target)
server.keepAliveTimeout = 30_000
server.on("error", (error) => {
  console.error(`bench server (${target}) failed:`, error)
  process.exit(1)
})
server.listen(Number(portArg), "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address ? address.port : Number(portArg)
  process.stdout.write(`LISTENING ${port}\n`)
})

let stopping = false
function shutdown() {
  if (stopping) return
  stopping = true
  server.closeAllConnections()
  // Writes to a pipe are synchronous on POSIX: the line is out before the process exits.
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  const { rss, heapUsed } = process.memoryUsage()
  process.stdout.write(`${STATS_PREFIX}${JSON.stringify({ writes, memory: gc ? { rss, heapUsed } : undefined })}\n`)
  const exit = () => process.exit(0)
  server.close(() => (closeDb ? closeDb().then(exit, exit) : exit()))
  setTimeout(exit, 1000).unref()
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)

/**
 * A function that computes for about `us` µs of CPU time on this machine: a loop timed
 * with `process.cpuUsage()` (CPU, not wall time, so a busy machine does not skew it) once
 * it is optimised. Its result is kept on `globalThis`, so the loop cannot be optimised away.
 */
function calibratedWork(us: number): () => void {
  const spin = (n: number) => {
    let x = 0
    for (let i = 0; i < n; i++) x += Math.sqrt(i + x)
    ;(globalThis as { benchWorkSink?: number }).benchWorkSink = x
  }
  for (let i = 0; i < 50; i++) spin(100_000)
  const n = 2_000_000
  let best = Infinity
  for (let round = 0; round < 5; round++) {
    const before = process.cpuUsage()
    spin(n)
    const used = process.cpuUsage(before)
    best = Math.min(best, used.user + used.system)
  }
  const perUs = n / Math.max(best, 1)
  const iterations = Math.max(1, Math.round(us * perUs))
  return () => spin(iterations)
}

/**
 * One bench server per process: `node bench/server.ts <target> [port]`.
 *
 *   baseline            answers `{}` to everything (the adapter alone: the ceiling)
 *   portcullis          Portcullis `Auth(request, config)`, JWT sessions, default updateAge
 *   portcullis-reissue  the same with `session.updateAge: 0` (every check re-issues)
 *   authjs              @auth/core `Auth(request, config)` with the equivalent config
 *   portcullis-sqlite    Portcullis, database sessions through `SqlAdapter` on SQLite
 *   authjs-sqlite        @auth/core, the same adapter on the same database
 *   portcullis-postgres  the same two on PostgreSQL
 *   authjs-postgres
 *
 * The database targets read the database's location from the `BENCH_DB` environment
 * variable (a `DbSpec`, see db.ts); the runner creates it and the session rows.
 *
 * Listens on 127.0.0.1 (port 0 = any free port) and prints `LISTENING <port>` once ready.
 * Exits cleanly on SIGTERM/SIGINT, so `--cpu-prof` gets to write its profile; just before,
 * it prints `STATS {"writes":{...}}`: the adapter writes it made, by method.
 */
import { Auth as authjsAuth } from "@auth/core"
import { Auth as portcullisAuth } from "@portcullis/core"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { serve, type WebHandler } from "./adapter.ts"
import { authjsConfig, authjsDbConfig, portcullisConfig, portcullisDbConfig } from "./configs.ts"
import { countingAdapter, openDb, type DbSpec } from "./db.ts"
import { DB_ENV, DB_TARGETS, STATS_PREFIX, TARGETS, type Target } from "./shared.ts"

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

function handlerFor(target: Target): WebHandler {
  switch (target) {
    case "baseline": {
      const headers = { "content-type": "application/json" }
      return () => new Response("{}", { headers })
    }
    case "portcullis": {
      const config = portcullisConfig({ reissue: false })
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
      const config = portcullisDbConfig(dbAdapter(target))
      return (request) => portcullisAuth(request, config)
    }
    case "authjs-sqlite":
    case "authjs-postgres": {
      const config = authjsDbConfig(dbAdapter(target))
      return (request) => authjsAuth(request, config)
    }
  }
}

const [target, portArg = "0"] = process.argv.slice(2)
if (!TARGETS.includes(target as Target)) {
  console.error(`usage: node bench/server.ts <${TARGETS.join("|")}> [port]`)
  process.exit(2)
}

const server = serve(handlerFor(target as Target))
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
  process.stdout.write(`${STATS_PREFIX}${JSON.stringify({ writes })}\n`)
  const exit = () => process.exit(0)
  server.close(() => (closeDb ? closeDb().then(exit, exit) : exit()))
  setTimeout(exit, 1000).unref()
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)

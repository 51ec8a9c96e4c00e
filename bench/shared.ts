/**
 * Constants shared by the bench servers, the runner and the test. Imports nothing, so the
 * test process does not load either library (the servers run the built packages).
 */

/** The servers `bench/server.ts` can run (see there). */
export const TARGETS = [
  "baseline",
  "baseline-session",
  "baseline-busy",
  "portcullis",
  "portcullis-reissue",
  "portcullis-telemetry-off",
  "authjs",
  "portcullis-sqlite",
  "authjs-sqlite",
  "portcullis-postgres",
  "authjs-postgres",
  "portcullis-memory",
  "authjs-memory",
  "express-portcullis",
  "express-authjs",
  "next-portcullis",
  "next-authjs",
  "baseline-native",
  "baseline-native-session",
  "baseline-express",
  "portcullis-redis",
  "authjs-redis",
  "authjs-pg",
  "portcullis-burst",
  // Core's Node path (`handleNodeRequest`) on plain node:http: the native session check.
  "node-portcullis",
  // The OpenID Provider rows (issue 34): see op-server.ts.
  "op-portcullis",
  "op-oidc-provider",
] as const
export type Target = (typeof TARGETS)[number]

/** Set (to "1") for a Portcullis target served by core's Node path (`handleNodeRequest`) instead of the Web adapter. */
export const NODE_PATH_ENV = "BENCH_NODE_PATH"

/** The targets with database sessions, and the database each one uses. */
export const DB_TARGETS: Partial<Record<Target, "sqlite" | "postgres">> = {
  "portcullis-sqlite": "sqlite",
  "authjs-sqlite": "sqlite",
  "portcullis-postgres": "postgres",
  "authjs-postgres": "postgres",
}

/** The scale rows' Redis targets (`RedisAdapter`; `@auth/unstorage-adapter` on unstorage's Redis driver) and `@auth/pg-adapter`'s. */
export const SCALE_ONLY_TARGETS: readonly Target[] = ["portcullis-redis", "authjs-redis", "authjs-pg"]

/** The in-memory adapter targets (each server seeds its own adapter, see `sessions.ts`). */
export const MEMORY_TARGETS: readonly Target[] = ["portcullis-memory", "authjs-memory"]
/** The Express targets: `GET /page` answers `getSession(req, config)` as JSON. */
export const EXPRESS_TARGETS: readonly Target[] = ["express-portcullis", "express-authjs"]
export const EXPRESS_PAGE = "/page"
/** The Next.js targets: `GET /page` answers the Pages Router's `auth(req, res)` as JSON. */
export const NEXT_TARGETS: readonly Target[] = ["next-portcullis", "next-authjs"]

/** Environment variable carrying the local OAuth provider's URL (OAuth callback rows). */
export const OAUTH_ENV = "BENCH_OAUTH"
export const OAUTH_PROVIDER_ID = "local"

/** Environment variable carrying how many sessions a memory target seeds, and their run id: `<n>:<runId>`. */
export const SESSIONS_ENV = "BENCH_SESSIONS"

/**
 * The session token of database session `i` of a run: distinct per index, the same in the
 * runner (which sends them) and the servers or database (which hold them).
 */
export function sessionToken(runId: string, i: number): string {
  return `${runId}${i.toString(16).padStart(8, "0")}`
}

/**
 * The headers of a session answer, exactly as Portcullis sends them (`privateJsonHeaders`
 * in core; `bench/bench.test.ts` checks they still match): the `baseline-session` floor
 * answers with them, so that row costs what the answer's shape costs and nothing else.
 */
export const SESSION_ANSWER_HEADERS: Readonly<Record<string, string>> = {
  "Content-Type": "application/json",
  "Cache-Control": "private, no-cache, no-store",
  Pragma: "no-cache",
  Expires: "0",
  Vary: "Cookie",
}

/** Environment variable carrying a database target's `DbSpec` (JSON, see `db.ts`). */
export const DB_ENV = "BENCH_DB"
/** Line a bench server prints on shutdown: `STATS {"writes":{...}}`. */
export const STATS_PREFIX = "STATS "

/** A fixed 32-byte secret (bench only; never reuse it). */
export const SECRET = "bench-secret-0123456789abcdef0123456789abcdef"
export const BASE_PATH = "/auth"

/** The account the bench signs in as, and what a valid session must show. */
export const BENCH_USER = { id: "1", name: "Bench User", email: "bench@example.com" }
export const BENCH_CREDENTIALS = { username: "bench", password: "bench-password" }
/** Environment variable naming the argon2 implementation of the burst row's sign-ins (`native` | `wasm`; default: what loads). */
export const ARGON2_ENV = "BENCH_ARGON2"
/**
 * Set to `compare` in the burst row's second server: its sign-ins compare the password
 * instead of verifying the argon2id hash, so the same requests run without the hashing.
 */
export const BURST_VERIFY_ENV = "BENCH_BURST_VERIFY"

/** CPU µs of computation the `baseline-busy` floor adds to each request (`BENCH_BUSY_US` overrides). */
export const BUSY_US = Number(process.env.BENCH_BUSY_US ?? 5)

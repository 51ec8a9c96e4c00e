/**
 * Constants shared by the bench servers, the runner and the test. Imports nothing, so the
 * test process does not load either library (the servers run the built packages).
 */

/** The servers `bench/server.ts` can run (see there). */
export const TARGETS = [
  "baseline",
  "portcullis",
  "portcullis-reissue",
  "authjs",
  "portcullis-sqlite",
  "authjs-sqlite",
  "portcullis-postgres",
  "authjs-postgres",
] as const
export type Target = (typeof TARGETS)[number]

/** The targets with database sessions, and the database each one uses. */
export const DB_TARGETS: Partial<Record<Target, "sqlite" | "postgres">> = {
  "portcullis-sqlite": "sqlite",
  "authjs-sqlite": "sqlite",
  "portcullis-postgres": "postgres",
  "authjs-postgres": "postgres",
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

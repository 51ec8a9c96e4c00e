/**
 * Test-time access to the database servers the adapters run against, and the CI rule:
 * a missing server skips its suite on a laptop but fails it in CI, so a broken CI
 * service can never pass silently as "all skipped".
 * @module
 */
import { describe, it } from "vitest"
import { pingRedis } from "./redis-ping.js"

/** A server an adapter suite needs, as shown to the person who must start it. */
export interface BackingService {
  /** Human name, e.g. `PostgreSQL`. */
  name: string
  /** Connection URL the tests use. */
  url: string
  /** How to start it locally, e.g. `pg_ctlcluster 15 main start`. */
  start: string
}

/**
 * PostgreSQL for tests: `PORTCULLIS_PG_URL`, default `postgres://postgres@127.0.0.1:5432/test`.
 *
 * @example
 * ```ts
 * const { url } = postgresService()
 * const db = createPostgresKysely(url)
 * ```
 */
export function postgresService(env: NodeJS.ProcessEnv = process.env): BackingService {
  return {
    name: "PostgreSQL",
    url: env.PORTCULLIS_PG_URL || "postgres://postgres@127.0.0.1:5432/test",
    start: "pg_ctlcluster 15 main start, or set PORTCULLIS_PG_URL",
  }
}

/**
 * The test PostgreSQL behind PgBouncer in transaction pooling mode (`scripts/pgbouncer.sh
 * start`): `PORTCULLIS_PGBOUNCER_URL`, default `postgres://postgres@127.0.0.1:6432/test`.
 *
 * @example
 * ```ts
 * const db = createPostgresKysely(pgbouncerService().url)
 * ```
 */
export function pgbouncerService(env: NodeJS.ProcessEnv = process.env): BackingService {
  return {
    name: "PgBouncer",
    url: env.PORTCULLIS_PGBOUNCER_URL || "postgres://postgres@127.0.0.1:6432/test",
    start: "scripts/pgbouncer.sh start, or set PORTCULLIS_PGBOUNCER_URL",
  }
}

/** MySQL/MariaDB for tests: `PORTCULLIS_MYSQL_URL`, default `mysql://root@127.0.0.1:3306/test`. */
export function mysqlService(env: NodeJS.ProcessEnv = process.env): BackingService {
  return {
    name: "MariaDB/MySQL",
    url: env.PORTCULLIS_MYSQL_URL || "mysql://root@127.0.0.1:3306/test",
    start: "service mariadb start, or set PORTCULLIS_MYSQL_URL",
  }
}

/** Redis for tests: `PORTCULLIS_REDIS_URL`, default `redis://127.0.0.1:6379`. */
export function redisService(env: NodeJS.ProcessEnv = process.env): BackingService {
  return {
    name: "Redis",
    url: env.PORTCULLIS_REDIS_URL || "redis://127.0.0.1:6379",
    start: "redis-server --daemonize yes, or set PORTCULLIS_REDIS_URL",
  }
}

/**
 * Redis Cluster for tests: `PORTCULLIS_REDIS_CLUSTER_URL`, default the seed nodes of
 * `scripts/redis-cluster.sh` (`redis+cluster://127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103`).
 */
export function redisClusterService(env: NodeJS.ProcessEnv = process.env): BackingService {
  return {
    name: "Redis Cluster",
    url: env.PORTCULLIS_REDIS_CLUSTER_URL || "redis+cluster://127.0.0.1:7101,127.0.0.1:7102,127.0.0.1:7103",
    start: "scripts/redis-cluster.sh start, or set PORTCULLIS_REDIS_CLUSTER_URL",
  }
}

/**
 * The seed nodes of a `redis+cluster://host:port,host:port` URL (no credentials: test
 * clusters have none).
 *
 * @example
 * ```ts
 * clusterNodes("redis+cluster://127.0.0.1:7101,127.0.0.1:7102") // [{ host: "127.0.0.1", port: 7101 }, …]
 * ```
 */
export function clusterNodes(url: string): { host: string; port: number }[] {
  const match = /^redis\+cluster:\/\/([^/@]+)\/?$/i.exec(url)
  if (!match) throw new Error(`not a redis+cluster://host:port,… URL: ${describeAddress(url)}`)
  return match[1]!.split(",").map((address) => {
    const at = address.lastIndexOf(":")
    return { host: address.slice(0, at), port: Number(address.slice(at + 1)) }
  })
}

/** `host:port` of a URL, leaving out credentials: messages end up in CI logs. */
export function describeAddress(url: string): string {
  try {
    // A cluster URL lists several hosts, which URL cannot parse: its part after any `@`.
    if (/^rediss?\+cluster:/i.test(url)) return url.replace(/^[^/]*\/\/(?:[^@/]*@)?/, "").replace(/\/$/, "")
    return new URL(url).host
  } catch {
    return "(unparseable URL)"
  }
}

/**
 * Whether the environment says we run in CI: `CI` set to anything but empty, `0` or `false`
 * (any case, spaces around ignored). CI services set it differently (`true`, `1`, a name),
 * and a value read as "not CI" turns a missing server into a silent skip, so every suite
 * that needs a server (or a browser, or a runtime) asks this one function.
 *
 * @example
 * ```ts
 * if (!available && isCI()) throw new Error("CI must provide the server")
 * ```
 */
export function isCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = (env.CI ?? "").trim().toLowerCase()
  return value !== "" && value !== "0" && value !== "false"
}

/** The outcome of probing a service; `describe` registers a suite that honours it. */
export interface ServiceGate {
  readonly available: boolean
  /** Why the probe failed, when it did. */
  readonly error?: Error
  /**
   * Registers `body` under `title` when the service is up. When it is down, registers a
   * failing test in CI and a skipped suite elsewhere (so the file still reports what it
   * did not run).
   */
  describe(title: string, body: () => void): void
}

/**
 * Probes a backing service once, before any suite is registered. Call it with top-level
 * `await` in the test file. When the service is unreachable outside CI, prints one line
 * saying what to start.
 *
 * @example
 * ```ts
 * const service = postgresService()
 * const pg = await serviceAvailable(service, async () => {
 *   const client = new pg.Client(service.url)
 *   await client.connect()
 *   await client.end()
 * })
 * pg.describe("SqlAdapter on PostgreSQL", () => {
 *   runAdapterConformance("PostgreSQL", { adapter: () => SqlAdapter(db) })
 * })
 * ```
 */
export async function serviceAvailable(
  service: BackingService,
  check: () => Promise<void>,
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<ServiceGate> {
  const { timeoutMs = 5_000, env = process.env } = options
  const address = describeAddress(service.url)
  let error: Error | undefined
  let timer: NodeJS.Timeout | undefined
  try {
    // A firewalled host never refuses, it just hangs; the timeout turns that into a failure.
    await Promise.race([
      check(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)
      }),
    ])
  } catch (cause) {
    error = cause instanceof Error ? cause : new Error(String(cause))
  } finally {
    clearTimeout(timer)
  }

  const ci = isCI(env)
  if (error && !ci) {
    console.log(`skipping ${service.name} adapter tests: start ${service.name} on ${address} (${service.start})`)
  }
  return {
    available: !error,
    error,
    describe(title, body) {
      if (!error) return describe(title, body)
      if (!ci) return describe.skip(title, body)
      describe(title, () => {
        it(`reaches ${service.name} at ${address}`, () => {
          throw new Error(
            `${service.name} is unreachable at ${address} and CI requires it (CI=${JSON.stringify(env.CI)}; ${service.start}): ${error.message}`,
            { cause: error },
          )
        })
      })
    },
  }
}

/**
 * The gate for suites that need the shared test Redis ({@link redisService}): probed once
 * with {@link pingRedis}, skipped locally and failing in CI when it does not answer.
 *
 * @example
 * ```ts
 * const redis = await redisAvailable()
 * redis.describe("RedisAdapter", () => { … })
 * ```
 */
export function redisAvailable(env: NodeJS.ProcessEnv = process.env): Promise<ServiceGate> {
  const service = redisService(env)
  return serviceAvailable(service, () => pingRedis(service.url), { env })
}

/**
 * The gate for suites that need the test Redis Cluster ({@link redisClusterService}): a
 * cluster client connects and `CLUSTER INFO` says `cluster_state:ok`. Skipped locally, and
 * failing in CI, when it does not.
 *
 * @example
 * ```ts
 * const cluster = await redisClusterAvailable()
 * cluster.describe("RedisAdapter on Redis Cluster", () => { … })
 * ```
 */
export function redisClusterAvailable(env: NodeJS.ProcessEnv = process.env): Promise<ServiceGate> {
  const service = redisClusterService(env)
  return serviceAvailable(service, () => probeRedisCluster(service.url), { env, timeoutMs: 10_000 })
}

async function probeRedisCluster(url: string): Promise<void> {
  const { Cluster } = await import("ioredis")
  const client = new Cluster(clusterNodes(url), { lazyConnect: true, clusterRetryStrategy: () => null, redisOptions: { connectTimeout: 3_000, maxRetriesPerRequest: 1 } })
  client.on("error", () => {})
  try {
    await client.connect()
    const info = String(await client.cluster("INFO"))
    if (!/^cluster_state:ok/m.test(info)) throw new Error(`the cluster is not ok: ${info.split("\r\n")[0]}`)
  } finally {
    client.disconnect()
  }
}

// The drivers are loaded only when probed, so suites without a SQL server never need them.
async function connectPostgres(url: string): Promise<void> {
  const pg = (await import("pg")).default
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
}

async function connectMysql(url: string): Promise<void> {
  const mysql = (await import("mysql2/promise")).default
  const connection = await mysql.createConnection({ uri: url, connectTimeout: 3_000 })
  await connection.end()
}

/**
 * The gate for suites that need the test PostgreSQL ({@link postgresService}): one
 * connection opened and closed.
 *
 * @example
 * ```ts
 * const postgresGate = await postgresAvailable()
 * postgresGate.describe("store on PostgreSQL", () => { … })
 * ```
 */
export function postgresAvailable(env: NodeJS.ProcessEnv = process.env): Promise<ServiceGate> {
  const service = postgresService(env)
  return serviceAvailable(service, () => connectPostgres(service.url), { env })
}

/**
 * The gate for suites that run through PgBouncer ({@link pgbouncerService}): one
 * connection through it opened and closed. Skipped locally, failing in CI, when it is not up.
 *
 * @example
 * ```ts
 * const gate = await pgbouncerAvailable()
 * gate.describe("store behind PgBouncer", () => storeSpec(postgresBackend(pgbouncerService().url)))
 * ```
 */
export function pgbouncerAvailable(env: NodeJS.ProcessEnv = process.env): Promise<ServiceGate> {
  const service = pgbouncerService(env)
  return serviceAvailable(service, () => connectPostgres(service.url), { env })
}

/** The gate for the test MariaDB/MySQL ({@link mysqlService}), as {@link postgresAvailable}. */
export function mysqlAvailable(env: NodeJS.ProcessEnv = process.env): Promise<ServiceGate> {
  const service = mysqlService(env)
  return serviceAvailable(service, () => connectMysql(service.url), { env })
}

/**
 * The test PostgreSQL and MariaDB/MySQL with their gates, probed one after the other (so
 * the "skipping" lines come in a fixed order). Call it with top-level `await`.
 *
 * @example
 * ```ts
 * export const { postgres, mariadb, postgresGate, mariadbGate } = await sqlServices()
 * ```
 */
export async function sqlServices(env: NodeJS.ProcessEnv = process.env): Promise<{
  postgres: BackingService
  mariadb: BackingService
  postgresGate: ServiceGate
  mariadbGate: ServiceGate
}> {
  const postgresGate = await postgresAvailable(env)
  const mariadbGate = await mysqlAvailable(env)
  return { postgres: postgresService(env), mariadb: mysqlService(env), postgresGate, mariadbGate }
}

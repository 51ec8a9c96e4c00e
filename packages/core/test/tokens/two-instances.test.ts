/**
 * Two app instances — two real Node processes running the built packages
 * (`instance.mjs`; rebuild with `tsc -b` first) — share PostgreSQL and Redis, and refresh
 * one account's provider token at the same moment: one refresh reaches the provider, and
 * both processes' callers get its result. Runs with the SQL adapter's own lock, the SQL
 * adapter with a Redis lock, and the Redis adapter.
 */
import { fork, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import pg from "pg"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { postgresService, redisService, serviceAvailable, pingRedis } from "@portcullis/adapter-test"
import type { Adapter } from "@portcullis/core/adapters"
import { encode } from "@portcullis/core/jwt"
import { createPostgresKysely, migrateToLatest, prefixedTables, SqlAdapter, type TableNames } from "@portcullis/sql-adapter"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { clientId, clientSecret, startRefreshOp, type RefreshOp } from "./refresh-op.js"

const pgService = postgresService()
const redisUrl = redisService().url
const gate = await serviceAvailable(pgService, async () => {
  const client = new pg.Client({ connectionString: pgService.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
  await pingRedis(redisUrl)
})

type Store = "sql" | "sql+redis-lock" | "redis"
interface Result {
  accessToken?: string
  error?: string
  reason?: string
}

/** One app instance as a child process. */
class Instance {
  readonly child: ChildProcess
  readonly #pending = new Map<number, (results: Result[]) => void>()
  #next = 0
  readonly ready: Promise<void>

  constructor(options: Record<string, unknown>) {
    this.child = fork(fileURLToPath(new URL("./instance.mjs", import.meta.url)), [JSON.stringify(options)], {
      execPath: process.execPath,
      execArgv: [],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    })
    this.ready = new Promise((resolve, reject) => {
      this.child.once("error", reject)
      this.child.once("exit", (code) => reject(new Error(`instance exited with ${code}`)))
      this.child.on("message", (message: { ready?: boolean; id?: number; results?: Result[] }) => {
        if (message.ready) resolve()
        if (message.id !== undefined) this.#pending.get(message.id)?.(message.results!)
      })
    })
  }

  tokens(userId: string, n: number): Promise<Result[]> {
    return this.#send({ cmd: "tokens", userId, n })
  }

  /** `n` concurrent calls for the browser whose `Cookie` header is `cookie`. */
  tokensFor(cookie: string, n: number): Promise<Result[]> {
    return this.#send({ cmd: "tokens", cookie, n })
  }

  #send(message: Record<string, unknown>): Promise<Result[]> {
    const id = this.#next++
    return new Promise((resolve) => {
      this.#pending.set(id, resolve)
      this.child.send({ ...message, id })
    })
  }

  kill(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve()
      this.child.removeAllListeners("exit")
      this.child.once("exit", () => resolve())
      this.child.kill("SIGKILL")
    })
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    this.child.removeAllListeners("exit")
    const exited = new Promise((resolve) => this.child.once("exit", resolve))
    this.child.send({ cmd: "close" })
    await exited
  }
}

gate.describe("token refresh across two app processes sharing PostgreSQL and Redis", () => {
  let op: RefreshOp
  const prefix = `pt${randomBytes(4).toString("hex")}_`
  const tables: TableNames = prefixedTables(prefix)
  const redisPrefix = `portcullis-test:${randomBytes(4).toString("hex")}:`
  const db = createPostgresKysely(pgService.url)
  const redis = createRedisClient(redisUrl)
  const adapters: Record<Store, Adapter> = {
    sql: SqlAdapter(db, { tables }),
    "sql+redis-lock": SqlAdapter(db, { tables }),
    redis: RedisAdapter(redis, { prefix: redisPrefix }),
  }
  const running: Instance[] = []

  beforeAll(async () => {
    op = await startRefreshOp()
    await migrateToLatest(db, { dialect: "postgres", tables, migrationTableName: `${prefix}migrations` })
  })
  afterAll(async () => {
    await Promise.all(running.map((i) => i.kill()))
    for (const table of [tables.passwords, tables.twoFactor, tables.locks, tables.rateLimits, tables.sessionRegistry, tables.authenticators, tables.sessions, tables.accounts, tables.verificationTokens, tables.users, `${prefix}migrations`, `${prefix}migrations_lock`]) {
      await db.schema.dropTable(table).ifExists().cascade().execute()
    }
    await db.destroy()
    const keys = await redis.keys(`${redisPrefix}*`)
    if (keys.length) await redis.del(...keys)
    redis.disconnect()
    await op.close()
  })
  beforeEach(() => {
    op.requests.length = 0
    op.fault = "none"
  })

  async function instances(store: Store, n = 2, extra: Record<string, unknown> = {}): Promise<Instance[]> {
    const started = Array.from({ length: n }, () =>
      new Instance({ ...extra, store, issuer: op.issuer, clientId, clientSecret, pgUrl: pgService.url, redisUrl, tables, prefix: redisPrefix, lockTtl: 1_500, timeout: 5_000 }),
    )
    running.push(...started)
    await Promise.all(started.map((i) => i.ready))
    return started
  }

  async function expiredAccount(store: Store) {
    const adapter = adapters[store]
    const userId = crypto.randomUUID()
    await adapter.createUser!({ id: userId, email: `${userId}@example.com`, emailVerified: null })
    const refreshToken = await op.mintRefreshToken()
    await adapter.linkAccount!({ userId, type: "oidc", provider: "op", providerAccountId: crypto.randomUUID(), access_token: "stale", refresh_token: refreshToken, expires_at: Math.floor(Date.now() / 1000) - 10, token_type: "bearer" })
    return { userId, refreshToken, stored: () => adapter.getAccountByUserId!(userId, "op") }
  }

  describe.each(["sql", "sql+redis-lock", "redis"] as const)("store: %s", (store) => {
    it("50 calls split over two processes make one refresh; all 50 get the token that was stored; the old refresh token is sent once", async () => {
      const [one, two] = await instances(store)
      const { userId, refreshToken, stored } = await expiredAccount(store)
      const results = (await Promise.all([one!.tokens(userId, 25), two!.tokens(userId, 25)])).flat()
      expect(results.filter((r) => r.error)).toEqual([])
      expect(op.refreshRequests()).toHaveLength(1)
      expect(op.refreshRequests()[0]).toMatchObject({ refreshToken, status: 200 })
      const after = (await stored())!
      expect(after.refresh_token).not.toBe(refreshToken)
      expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([after.access_token]))
      await Promise.all([one!.close(), two!.close()])
    })

    it("a process killed while it holds the lock (its refresh swallowed by the network) holds the other off until the lock expires; then one refresh", async () => {
      const [doomed, survivor] = await instances(store)
      const { userId, refreshToken, stored } = await expiredAccount(store)
      op.fault = "hang"
      void doomed!.tokens(userId, 1)
      // The doomed process holds the lock once its refresh is at the provider's door.
      for (let i = 0; i < 200 && !op.requests.some((r) => r.grantType === "hung"); i++) await new Promise((resolve) => setTimeout(resolve, 25))
      expect(op.requests.some((r) => r.grantType === "hung")).toBe(true)
      await doomed!.kill()
      op.fault = "none"
      const results = await survivor!.tokens(userId, 10)
      expect(results.filter((r) => r.error)).toEqual([])
      expect(op.refreshRequests()).toEqual([expect.objectContaining({ refreshToken, status: 200 })])
      const after = (await stored())!
      expect(new Set(results.map((r) => r.accessToken))).toEqual(new Set([after.access_token]))
      await survivor!.close()
    })

    it("JWT sessions: 50 requests carrying one old cookie, split over two processes, make one refresh and all get its tokens", async () => {
      const [one, two] = await instances(store, 2, { jwt: true })
      const refreshToken = await op.mintRefreshToken()
      const token = {
        sub: crypto.randomUUID(),
        name: "Demo",
        pcl_oauth: { provider: "op", access_token: "stale", refresh_token: refreshToken, expires_at: Math.floor(Date.now() / 1000) - 10 },
      }
      const cookie = `authjs.session-token=${await encode({ token, secret: "a-test-secret-with-at-least-32-characters", salt: "authjs.session-token" })}`
      const results = (await Promise.all([one!.tokensFor(cookie, 25), two!.tokensFor(cookie, 25)])).flat()
      expect(results.filter((r) => r.error)).toEqual([])
      expect(op.refreshRequests()).toEqual([expect.objectContaining({ refreshToken, status: 200 })])
      expect(new Set(results.map((r) => r.accessToken)).size).toBe(1)
      expect(results[0]!.accessToken).not.toBe("stale")
      await Promise.all([one!.close(), two!.close()])
    })
  })
})

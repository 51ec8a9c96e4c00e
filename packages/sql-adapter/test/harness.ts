/**
 * Shared set-up for running the SQL adapter against one database: unique table names
 * per run (so parallel runs and other suites sharing the database never collide), a
 * query counter fed by Kysely's log hook, and raw reads for the conformance suite.
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Kysely, KyselyConfig } from "kysely"
import { runAdapterConformance, runSessionRegistryConformance, type RawStorage } from "@portcullis/adapter-test"
import { runRateLimitStoreContract } from "@portcullis/adapter-test/rate-limit"
import { migrateToLatest, prefixedTables, schemaMigrations, SqlAdapter, SqlSessionRegistry, type SqlDialect, type TableNames } from "@portcullis/sql-adapter"
import { sqlRateLimitStore } from "@portcullis/sql-adapter/rate-limit"

export type Connect = (config: Omit<KyselyConfig, "dialect">) => Kysely<any>

export class SqlTestDatabase {
  readonly prefix = `pc${randomBytes(4).toString("hex")}_`
  readonly tables: TableNames = prefixedTables(this.prefix)
  readonly migrationTableName = `${this.prefix}migrations`
  /** Queries sent since the last `resetQueryCount()`. */
  queryCount = 0
  #db: Kysely<any> | undefined

  constructor(readonly dialect: SqlDialect, private readonly connect: Connect, private readonly cleanup?: () => Promise<void>) {}

  get db(): Kysely<any> {
    if (!this.#db) throw new Error("SqlTestDatabase used before open()")
    return this.#db
  }

  /**
   * Connects. `countQueries: false` connects without Kysely's log hook, as apps usually do,
   * so on SQLite the session reads take the direct road (`direct-read.ts`); with the hook,
   * every query stays on Kysely's road.
   */
  open(countQueries = true): Kysely<any> {
    this.#db = this.connect(countQueries ? {
      log: (event) => {
        if (event.level === "query") this.queryCount++
      },
    } : {})
    return this.#db
  }

  migrate(): Promise<string[]> {
    return migrateToLatest(this.db, { dialect: this.dialect, tables: this.tables, migrationTableName: this.migrationTableName })
  }

  adapter(options: { sessionMetadata?: boolean; passwords?: boolean; auditTrail?: boolean } = {}) {
    return SqlAdapter(this.db, { tables: this.tables, ...options })
  }

  async close(): Promise<void> {
    if (!this.#db) return
    const t = this.tables
    // Children before users (foreign keys), then the migrator's bookkeeping.
    for (const table of [t.auditRecords, t.passwords, t.twoFactor, t.locks, t.sessionRegistry, t.rateLimits, t.authenticators, t.verificationTokens, t.sessions, t.accounts, t.users,
      this.migrationTableName, `${this.migrationTableName}_lock`]) {
      await this.db.schema.dropTable(table).ifExists().execute()
    }
    await this.db.destroy()
    await this.cleanup?.()
  }

  raw(): RawStorage {
    const t = this.tables
    const one = (table: string, where: Record<string, string>) =>
      Object.entries(where).reduce((q, [column, value]) => q.where(column, "=", value), this.db.selectFrom(table).selectAll())
        .executeTakeFirst()
    return {
      user: (id) => one(t.users, { id }),
      account: (provider, providerAccountId) => one(t.accounts, { provider, providerAccountId }),
      session: (sessionToken) => one(t.sessions, { sessionToken }),
      verificationToken: (identifier, token) => one(t.verificationTokens, { identifier, token }),
      authenticator: (credentialID) => one(t.authenticators, { credentialID }),
    }
  }
}

/**
 * Registers the conformance suite and the SQL-specific specs for one database.
 * `cleanup` runs once both suites closed their connections (e.g. to delete a SQLite file).
 */
export function runSqlSuites(label: string, dialect: SqlDialect, connect: Connect, cleanup?: () => Promise<void>): void {
  const conformance = new SqlTestDatabase(dialect, connect)
  runAdapterConformance(`SqlAdapter on ${label}`, {
    setup: async () => {
      // No query log here: on SQLite the suite then runs on the direct session reads; the
      // specs below (with the log) keep the other road covered.
      conformance.open(false)
      await conformance.migrate()
    },
    adapter: () => conformance.adapter({ passwords: true, auditTrail: true }),
    teardown: () => conformance.close(),
    db: conformance.raw(),
    tokenRefresh: true,
    twoFactor: true,
    passwords: true,
    auditTrail: true,
  })

  describe(`sqlRateLimitStore on ${label}`, () => {
    const database = new SqlTestDatabase(dialect, connect)
    beforeAll(async () => {
      database.open()
      await database.migrate()
    })
    afterAll(() => database.close())
    runRateLimitStoreContract(`sqlRateLimitStore on ${label}`, () => sqlRateLimitStore(database.db, { tables: database.tables }))

    it("restarts a counter whose window ended, in the same statement", async () => {
      const store = sqlRateLimitStore(database.db, { tables: database.tables })
      const key = `ended-${crypto.randomUUID()}`
      await store.hit(key, 60, 7)
      // The window's end moved into the past, as time passing would do.
      await database.db.updateTable(database.tables.rateLimits).set({ expires_at: Date.now() - 1 }).where("counter_key", "=", key).execute()
      expect(await store.peek(key)).toBeNull()
      const restarted = await store.hit(key, 60)
      expect(restarted.count).toBe(1)
      expect(restarted.resetMs).toBeGreaterThan(59_000)
    })
  })

  const registryDb = new SqlTestDatabase(dialect, connect)
  describe(`SqlSessionRegistry on ${label}`, () => {
    beforeAll(async () => {
      registryDb.open()
      await registryDb.migrate()
    })
    afterAll(() => registryDb.close())
    runSessionRegistryConformance(`SqlSessionRegistry on ${label}`, { registry: () => new SqlSessionRegistry(registryDb.db, { tables: registryDb.tables }) })

    it(`touches a removed session with one query${dialect === "mysql" ? " and a check (MySQL may count only changed rows)" : ""}`, async () => {
      const registry = new SqlSessionRegistry(registryDb.db, { tables: registryDb.tables })
      const userId = crypto.randomUUID()
      const [kept, removed] = [crypto.randomUUID(), crypto.randomUUID()]
      const now = new Date()
      await registry.add({ id: kept, userId, createdAt: now, lastSeenAt: now, expires: new Date(now.getTime() + 3_600_000) })
      registryDb.queryCount = 0
      expect(await registry.touch(userId, removed, new Date(), new Date(Date.now() + 3_600_000))).toBe(false)
      expect(registryDb.queryCount).toBe(dialect === "mysql" ? 2 : 1)
      expect(await registry.touch(userId, kept, new Date(), new Date(Date.now() + 3_600_000))).toBe(true)
    })
  })

  describe(`SqlAdapter on ${label}: a schema without the session-management migration (Auth.js's columns only)`, () => {
    const legacy = new SqlTestDatabase(dialect, connect)
    beforeAll(async () => {
      legacy.open()
      // Only the first migration, as an Auth.js database has it: no metadata columns, no registry table.
      await schemaMigrations(dialect, legacy.tables)["0001_initial_schema"]!.up(legacy.db)
    })
    afterAll(() => legacy.close())

    it("creates, reads, extends, lists and deletes sessions (metadata left out and listed as absent)", async () => {
      const adapter = legacy.adapter()
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      const sessionToken = `tok-${crypto.randomUUID()}`
      await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 3_600_000) })
      expect((await adapter.getSessionAndUser!(sessionToken))?.user.id).toBe(user.id)
      await adapter.updateSession!({ sessionToken, expires: new Date(Date.now() + 7_200_000) })
      const listed = await adapter.listSessions!(user.id)
      expect(listed.map((s) => s.sessionToken)).toEqual([sessionToken])
      expect(listed[0]!.createdAt).toBeUndefined()
      await adapter.deleteSession!(sessionToken)
      expect(await adapter.listSessions!(user.id)).toEqual([])
    })
  })

  describe(`SqlAdapter on ${label}: schema and queries`, () => {
    const database = new SqlTestDatabase(dialect, connect, cleanup)
    let firstRun: string[] = []
    beforeAll(() => {
      database.open()
    })
    afterAll(() => database.close())

    // The specs share these tables, migrated by the first one; each reads only its own rows.
    it("applies every migration to an empty database, in order", async () => {
      firstRun = await database.migrate()
      expect(firstRun).toEqual(["0001_initial_schema", "0002_rate_limits", "0003_session_management", "0004_token_refresh", "0005_passwords", "0006_two_factor", "0007_audit_trail", "0008_passkey_names"])
    })

    it("applies nothing when migrated again (idempotent)", async () => {
      expect(firstRun).not.toEqual([])
      expect(await database.migrate()).toEqual([])
    })

    it("reads a session and its user in a single query (a join)", async () => {
      const adapter = database.adapter()
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      const expires = new Date(Date.now() + 3_600_000)
      await adapter.createSession!({ sessionToken: `tok-${crypto.randomUUID()}`, userId: user.id, expires })
      const token = (await database.db.selectFrom(database.tables.sessions).select("sessionToken")
        .where("userId", "=", user.id).executeTakeFirstOrThrow()).sessionToken as string

      database.queryCount = 0
      const found = await adapter.getSessionAndUser!(token)
      expect(database.queryCount).toBe(1)
      expect(found?.user.id).toBe(user.id)
      expect(found?.session.expires.getTime()).toBe(expires.getTime())
    })

    it("returns the session row's id from getSessionAndUser, as Auth.js's SQL adapters do", async () => {
      const adapter = database.adapter()
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      const sessionToken = `tok-${crypto.randomUUID()}`
      await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 3_600_000) })
      const row = await database.db.selectFrom(database.tables.sessions).select("id").where("sessionToken", "=", sessionToken).executeTakeFirstOrThrow()
      const found = await adapter.getSessionAndUser!(sessionToken)
      expect((found?.session as { id?: string } | undefined)?.id).toBe(String(row.id))
    })

    it("cascades a user's deletion to their rows through foreign keys", async () => {
      const adapter = database.adapter()
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      const sessionToken = crypto.randomUUID()
      await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 3_600_000) })
      await adapter.linkAccount!({ userId: user.id, type: "oauth", provider: "github", providerAccountId: crypto.randomUUID() })

      // Bypass the adapter's explicit deletes: only the schema's ON DELETE CASCADE is left.
      await database.db.deleteFrom(database.tables.users).where("id", "=", user.id).execute()

      const raw = database.raw()
      expect(await raw.session!(sessionToken)).toBeUndefined()
      const accounts = await database.db.selectFrom(database.tables.accounts).selectAll().where("userId", "=", user.id).execute()
      expect(accounts).toEqual([])
    })

    it("stores session metadata when given, reads createdAt with each check (sessionMetadata), and lists it", async () => {
      const adapter = database.adapter({ sessionMetadata: true })
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      const createdAt = new Date(Date.now() - 60_000)
      const sessionToken = `tok-${crypto.randomUUID()}`
      await adapter.createSession!({ sessionToken, userId: user.id, expires: new Date(Date.now() + 3_600_000), createdAt, lastSeenAt: createdAt, userAgent: "Agent/1", ipAddress: "2001:db8::1" })
      database.queryCount = 0
      const found = await adapter.getSessionAndUser!(sessionToken)
      expect(database.queryCount).toBe(1)
      expect(found?.session.createdAt?.getTime()).toBe(createdAt.getTime())
      const seen = new Date()
      await adapter.updateSession!({ sessionToken, lastSeenAt: seen })
      const [listed] = await adapter.listSessions!(user.id)
      expect(listed).toMatchObject({ sessionToken, userAgent: "Agent/1", ipAddress: "2001:db8::1" })
      expect(listed!.createdAt?.getTime()).toBe(createdAt.getTime())
      expect(listed!.lastSeenAt?.getTime()).toBe(seen.getTime())
    })

    it("stores one password hash per user apart from the user (passwords: true), replaces it, and deletes it with the user", async () => {
      const adapter = database.adapter({ passwords: true })
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      expect(await adapter.getUserPassword!(user.id)).toBeNull()
      await adapter.setUserPassword!(user.id, "$argon2id$v=19$m=19456,t=2,p=1$first")
      await adapter.setUserPassword!(user.id, "$argon2id$v=19$m=19456,t=2,p=1$second")
      expect(await adapter.getUserPassword!(user.id)).toBe("$argon2id$v=19$m=19456,t=2,p=1$second")
      expect(Object.values((await adapter.getUser!(user.id))!)).not.toContain("$argon2id$v=19$m=19456,t=2,p=1$second")
      await adapter.deleteUser!(user.id)
      expect(await adapter.getUserPassword!(user.id)).toBeNull()
    })

    it("keeps one row when 20 writers set a user's password at once", async () => {
      const adapter = database.adapter({ passwords: true })
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      await Promise.all(Array.from({ length: 20 }, (_, i) => adapter.setUserPassword!(user.id, `$argon2id$v=19$m=19456,t=2,p=1$writer${i}`)))
      const rows = await database.db.selectFrom(database.tables.passwords).selectAll().where("userId", "=", user.id).execute()
      expect(rows).toHaveLength(1)
      expect(String(rows[0]!.hash)).toMatch(/writer\d+$/)
    })

    it("has no password methods without passwords: true, for an Auth.js schema", () => {
      const adapter = database.adapter()
      expect(adapter.getUserPassword).toBeUndefined()
      expect(adapter.setUserPassword).toBeUndefined()
    })

    it("drops account fields that have no column instead of failing", async () => {
      const adapter = database.adapter()
      const user = await adapter.createUser!({ id: crypto.randomUUID(), email: `${crypto.randomUUID()}@example.com`, emailVerified: null })
      const account = { userId: user.id, type: "oauth" as const, provider: "github", providerAccountId: crypto.randomUUID(),
        access_token: "at", expires_in: 3600, authorization_details: [{ type: "x" }] }
      await adapter.linkAccount!(account)
      const found = await adapter.getAccount!(account.providerAccountId, "github")
      expect(found).toEqual({ userId: user.id, type: "oauth", provider: "github", providerAccountId: account.providerAccountId, access_token: "at" })
    })
  })
}

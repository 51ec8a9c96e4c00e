import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Kysely } from "kysely"
import { detectOidcProviderDialect, migrate, migrateOidcProvider, oidcProviderTables, sqlOidcProviderStore } from "@portcullis/oidc-provider/sql"
import { makeCode, makeGrant, makeRefreshToken, oidcProviderStoreConformance } from "@portcullis/oidc-provider/testing"
import { mariadbBackend, mariadbGate, openSqlStore, postgresBackend, postgresGate, sqliteBackend, type SqlBackend } from "./store-harness.js"

/** The conformance suite and the SQL-only specs, on one backend. */
function sqlSuites(backend: SqlBackend): void {
  oidcProviderStoreConformance(`sqlOidcProviderStore on ${backend.label}`, () => openSqlStore(backend))

  describe(`the OpenID Provider schema on ${backend.label}`, () => {
    let harness: Awaited<ReturnType<typeof openSqlStore>>
    beforeAll(async () => {
      harness = await openSqlStore(backend)
    })
    afterAll(async () => {
      await harness?.cleanup()
      await backend.cleanup?.()
    })

    it("applies nothing when migrated again, and records its migrations in a table of its own", async () => {
      expect(await migrateOidcProvider(harness.db, { tablePrefix: harness.tablePrefix })).toEqual([])
      expect(await migrate(harness.db, { tablePrefix: harness.tablePrefix })).toEqual([])
      const recorded = await harness.db.selectFrom(oidcProviderTables(harness.tablePrefix).migrations).select("name").execute()
      expect(recorded.map((r) => r.name)).toEqual(["0001_oidc_provider", "0002_used_keys"])
    })

    it("tells its dialect from the Kysely instance, and refuses one it cannot tell or a bad prefix", () => {
      expect(detectOidcProviderDialect(harness.db)).toBe(backend.dialect)
      const unknown = { getExecutor: () => ({ adapter: {} }) } as unknown as Kysely<any>
      expect(() => sqlOidcProviderStore(unknown)).toThrow(/pass \{ dialect/)
      expect(() => sqlOidcProviderStore(harness.db, { tablePrefix: "bad-prefix" })).toThrow(/tablePrefix/)
    })

    it("keeps hashes, not codes: the row holds the code's hash and nothing else secret", async () => {
      const grant = makeGrant()
      await harness.store.createGrant(grant)
      const code = makeCode(grant)
      await harness.store.saveCode(code)
      const rows = await harness.db.selectFrom(oidcProviderTables(harness.tablePrefix).codes).select(["code_hash", "grant_id"]).where("grant_id", "=", grant.id).execute()
      expect(rows).toEqual([{ code_hash: code.codeHash, grant_id: grant.id }])
    })

    it("rolls a rotation back whole when saving the next token fails: the old token stays current, nothing half written", async () => {
      const grant = makeGrant()
      await harness.store.createGrant(grant)
      const token = makeRefreshToken(grant)
      const taken = makeRefreshToken(grant)
      await harness.store.saveRefreshToken(token)
      await harness.store.saveRefreshToken(taken)
      // A `next` whose hash is already stored: its INSERT fails after the old token was marked rotated.
      await expect(harness.store.rotateRefreshToken(token.tokenHash, { ...taken, scope: "other" })).rejects.toThrow()
      expect(await harness.store.getRefreshToken(token.tokenHash)).toEqual(token)
      expect(await harness.store.getRefreshToken(taken.tokenHash)).toEqual(taken)
      expect(await harness.store.getGrant(grant.id)).toEqual(grant)
      // And it rotates normally afterwards.
      expect((await harness.store.rotateRefreshToken(token.tokenHash, makeRefreshToken(grant))).status).toBe("rotated")
    })

    it("binds every value as a parameter", async () => {
      const userId = "Robert'); DROP TABLE students;--"
      const grant = makeGrant({ userId, clientId: `c'"\\${randomUUID()}` })
      await harness.store.createGrant(grant)
      expect(await harness.store.listGrants(userId, grant.clientId)).toEqual([grant])
    })

    it("sweeps expired rows as it writes", async () => {
      const t = oidcProviderTables(harness.tablePrefix)
      const grant = makeGrant()
      await harness.store.createGrant(grant)
      const old = makeCode(grant, { expiresAt: new Date(Date.now() - 1_000) })
      await harness.store.saveCode(old)
      // A hundred writes on one store make at least one sweep.
      for (let n = 0; n < 100; n++) await harness.store.putInteraction(randomUUID(), "v", new Date(Date.now() + 60_000))
      expect(await harness.db.selectFrom(t.codes).select("code_hash").where("code_hash", "=", old.codeHash).execute()).toEqual([])
    })
  })
}

sqlSuites(sqliteBackend())
postgresGate.describe("PostgreSQL", () => sqlSuites(postgresBackend()))
mariadbGate.describe("MariaDB/MySQL", () => sqlSuites(mariadbBackend()))

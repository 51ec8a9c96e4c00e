/**
 * The two-factor step on real databases (PostgreSQL, and SQLite): the secret is sealed in
 * the row, and one code used by 10 sign-ins at the same moment gives exactly one session —
 * the database's atomic update decides, through the whole request path.
 */
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { totpCode } from "@portcullis/core/two-factor"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"

const service = postgresService()
const postgres = await serviceAvailable(service, async () => {
  const client = new pg.Client({ connectionString: service.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

function suite(dialect: "postgres" | "sqlite") {
  let database: TestDatabase
  beforeAll(async () => {
    database = await openTestDatabase(dialect, { url: service.url })
    await database.adapter.createUser!({ id: ADA_ID, name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
  })
  afterAll(() => database.close())

  async function app() {
    const { config, browser } = twoFactorApp({}, database.adapter)
    await database.adapter.deleteTwoFactor!(ADA_ID)
    return { config, browser, ...(await enroll(config)) }
  }

  it("stores the TOTP secret sealed: the row holds a JWE, not the secret", async () => {
    const { secret } = await app()
    const row = await database.db.selectFrom(database.tables.twoFactor).selectAll().where("userId", "=", ADA_ID).executeTakeFirstOrThrow()
    expect(String(row.secret).split(".")).toHaveLength(5)
    expect(String(row.secret)).not.toContain(secret)
    expect(JSON.parse(String(row.backupCodes))).toHaveLength(10)
  })

  it("gives exactly one of 10 concurrent sign-ins with one backup code a session", async () => {
    const { browser, backupCodes } = await app()
    const browsers = Array.from({ length: 10 }, browser)
    for (const b of browsers) await firstFactor(b)
    const responses = await Promise.all(browsers.map((b) => secondFactor(b, backupCodes[0]!)))
    expect(responses.filter((r) => r.status === 302)).toHaveLength(1)
    expect(browsers.filter((b) => b.sessionCookie() !== undefined)).toHaveLength(1)
    expect((await database.adapter.getTwoFactor!(ADA_ID))!.backupCodes).toHaveLength(9)
  })

  it("gives exactly one of 10 concurrent sign-ins with one TOTP code a session", async () => {
    const { browser, secret } = await app()
    const browsers = Array.from({ length: 10 }, browser)
    for (const b of browsers) await firstFactor(b)
    const code = totpCode(secret)
    const responses = await Promise.all(browsers.map((b) => secondFactor(b, code)))
    expect(responses.filter((r) => r.status === 302)).toHaveLength(1)
    expect(browsers.filter((b) => b.sessionCookie() !== undefined)).toHaveLength(1)
  })
}

postgres.describe("two-factor on PostgreSQL", () => suite("postgres"))
describe("two-factor on SQLite", () => suite("sqlite"))

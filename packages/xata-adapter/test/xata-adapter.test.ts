/**
 * XataAdapter tests, run against a STAND-IN FOR THE HOSTED XATA SERVICE.
 *
 * Xata's hosted service cannot be reached from CI, so `xata-stand-in.ts` is our own
 * node:http server, written from Xata's public REST API documentation, that answers the
 * requests `@xata.io/client` sends (records, queries, transactions) and keeps the records
 * in PostgreSQL. The adapter under test is the real one, on a real `@xata.io/client`
 * `BaseClient` pointed at the stand-in through its `databaseURL` option. Passing here
 * shows the adapter uses the client's API correctly as far as the stand-in mirrors Xata;
 * it is not a test against Xata itself.
 *
 * Needs PostgreSQL (`PORTCULLIS_PG_URL`, default postgres://postgres@127.0.0.1:5432/test):
 * skipped without it locally, failing without it in CI. Every run uses its own
 * PostgreSQL schema, dropped at the end.
 */
import { randomBytes, randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BaseClient } from "@xata.io/client"
import {
  makeAccount,
  makeAuthenticator,
  makeSession,
  makeUser,
  makeVerificationToken,
  postgresService,
  runAdapterConformance,
  serviceAvailable,
  type RawStorage,
} from "@portcullis/adapter-test"
import type { Adapter } from "@portcullis/core/adapters"
import { XataAdapter, XataAdapterError, xataSchema, xataTableNames, type XataTableNames } from "@portcullis/xata-adapter"
import { XataStandIn } from "./xata-stand-in.js"

const service = postgresService()
const gate = await serviceAvailable(service, async () => {
  const client = new pg.Client({ connectionString: service.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

/** One stand-in service on its own PostgreSQL schema, with tables for `prefix`. */
class Harness {
  readonly tables: XataTableNames
  #pool: pg.Pool | undefined
  #standIn: XataStandIn | undefined

  constructor(readonly prefix = "nextauth_", private readonly withAuthenticators = true) {
    this.tables = xataTableNames(prefix)
  }

  /**
   * The schema the stand-in serves (an Auth.js-era database has neither the authenticators
   * nor the user_passwords table, both Portcullis additions).
   */
  schema() {
    const schema = xataSchema(this.prefix)
    const added = [this.tables.authenticators, this.tables.userPasswords, this.tables.twoFactor]
    return this.withAuthenticators ? schema : { tables: schema.tables.filter((t) => !added.includes(t.name)) }
  }

  get standIn(): XataStandIn {
    if (!this.#standIn) throw new Error("Harness used before start()")
    return this.#standIn
  }

  async start(): Promise<void> {
    this.#pool = new pg.Pool({ connectionString: service.url, max: 10 })
    this.#standIn = new XataStandIn({
      pool: this.#pool,
      pgSchema: `xata_standin_${randomBytes(4).toString("hex")}`,
      schema: this.schema(),
    })
    await this.#standIn.start()
  }

  async stop(): Promise<void> {
    await this.#standIn?.stop()
    await this.#pool?.end()
  }

  /**
   * A client like the one `xata codegen` generates: it is given the schema's tables.
   * With `tables: false` it fetches them from the branch, as a plain `BaseClient` does.
   */
  client(options: { tables?: boolean; branch?: string } = {}): BaseClient {
    return new BaseClient(
      {
        databaseURL: this.standIn.databaseURL,
        fetch: this.standIn.fetch,
        apiKey: this.standIn.apiKey,
        branch: options.branch ?? this.standIn.branch,
      },
      options.tables === false ? undefined : this.schema().tables,
    )
  }

  adapter(options: { tables?: boolean; branch?: string; passwords?: boolean; twoFactor?: boolean } = {}): Required<Adapter> {
    return XataAdapter(this.client(options), {
      prefix: this.prefix, passwords: options.passwords, twoFactor: options.twoFactor,
    }) as Required<Adapter>
  }

  /** Rows of a table where every given column equals the value (bypassing the service). */
  async rows(table: string, where: Record<string, string> = {}): Promise<Record<string, unknown>[]> {
    const keys = Object.keys(where)
    const sql = `SELECT * FROM ${this.standIn.pgTable(table)}${
      keys.length ? ` WHERE ${keys.map((k, i) => `"${k}" = $${i + 1}`).join(" AND ")}` : ""}`
    const { rows } = await this.#pool!.query(sql, keys.map((k) => where[k]))
    return rows
  }

  raw(): RawStorage {
    const t = this.tables
    const one = async (table: string, where: Record<string, string>) => (await this.rows(table, where))[0] ?? null
    return {
      user: (id) => one(t.users, { id }),
      account: (provider, providerAccountId) => one(t.accounts, { provider, providerAccountId }),
      session: (sessionToken) => one(t.sessions, { sessionToken }),
      verificationToken: (identifier, token) => one(t.verificationTokens, { identifier, token }),
      authenticator: (credentialID) => one(t.authenticators, { credentialID }),
    }
  }
}

describe("schema.json", () => {
  it("is the schema of the default nextauth_ prefix", () => {
    const file = JSON.parse(readFileSync(new URL("../schema.json", import.meta.url), "utf8"))
    expect(file).toEqual(xataSchema())
    expect(file.tables.map((t: { name: string }) => t.name)).toEqual([
      "nextauth_users", "nextauth_accounts", "nextauth_sessions", "nextauth_verificationTokens",
      "nextauth_users_accounts", "nextauth_users_sessions", "nextauth_authenticators",
      "nextauth_user_passwords", "nextauth_two_factor",
    ])
  })

  it("refuses a prefix Xata cannot use in a table name", () => {
    expect(() => xataTableNames("my prefix")).toThrow(TypeError)
    const client = { db: {}, transactions: {}, getConfig: async () => ({ databaseURL: "", branch: "" }) }
    expect(() => XataAdapter(client as never, { prefix: "a/b_" })).toThrow(/invalid table prefix/)
  })
})

describe("getConfig checks", () => {
  const fake = (config: { databaseURL: string; branch: string }) =>
    XataAdapter({ db: {}, transactions: {}, getConfig: async () => config } as never) as Required<Adapter>

  it("fails the first operation with a clear message when the client has no database URL", async () => {
    await expect(fake({ databaseURL: "", branch: "main" }).getUser("x")).rejects.toThrow(/no valid databaseURL/)
    await expect(fake({ databaseURL: "https://ws.us-east-1.xata.sh/", branch: "main" }).getUser("x"))
      .rejects.toThrow(/does not name a database/)
  })

  it("fails with a clear message when the client has no branch", async () => {
    await expect(fake({ databaseURL: "https://ws.us-east-1.xata.sh/db/app", branch: "" }).getUser("x"))
      .rejects.toThrow(XataAdapterError)
  })
})

gate.describe("XataAdapter on the Xata stand-in (PostgreSQL-backed)", () => {
  const conformance = new Harness()
  runAdapterConformance("XataAdapter", {
    setup: () => conformance.start(),
    adapter: () => conformance.adapter({ passwords: true, twoFactor: true }),
    teardown: () => conformance.stop(),
    db: conformance.raw(),
    passwords: true,
    twoFactor: true,
  })

  describe("XataAdapter: two-factor records (the two_factor table)", () => {
    const h = new Harness()
    let a: Required<Adapter>
    beforeAll(async () => {
      await h.start()
      a = h.adapter({ twoFactor: true })
    })
    afterAll(() => h.stop())

    const record = (userId: string, codes = ["h1", "h2", "h3"]) =>
      ({ userId, secret: "eyJhbGciOiJkaXIifQ..sealed", enabled: true, lastUsedStep: null, backupCodes: codes })

    it("keeps one record per user, its record id the user id, the codes as a JSON array", async () => {
      const user = await a.createUser(makeUser())
      await a.setTwoFactor(record(user.id))
      const rows = await h.rows(h.tables.twoFactor, { id: user.id })
      expect(rows).toEqual([expect.objectContaining({ user: user.id, enabled: true, backupCodes: JSON.stringify(["h1", "h2", "h3"]) })])
    })

    // The stand-in checks ifVersion in the same statement as the write, as Xata documents
    // for optimistic concurrency; these show the adapter relies on nothing more.
    it("50 concurrent uses of one step: exactly one succeeds, and the step is stored once", async () => {
      const user = await a.createUser(makeUser())
      await a.setTwoFactor(record(user.id))
      const results = await Promise.all(Array.from({ length: 50 }, () => a.useTwoFactorStep(user.id, 1000)))
      expect(results.filter(Boolean)).toHaveLength(1)
      expect((await a.getTwoFactor(user.id))?.lastUsedStep).toBe(1000)
    })

    it("steps used out of order at once never move the stored step back", async () => {
      const user = await a.createUser(makeUser())
      await a.setTwoFactor(record(user.id))
      const results = await Promise.all([1001, 1002, 1001, 1002].map((step) => a.useTwoFactorStep(user.id, step)))
      expect(results.filter(Boolean).length).toBeGreaterThanOrEqual(1)
      expect(results.filter(Boolean).length).toBeLessThanOrEqual(2)
      expect((await a.getTwoFactor(user.id))?.lastUsedStep).toBe(1002)
    })

    it("50 concurrent uses of one backup code: exactly one succeeds, the others stay", async () => {
      const user = await a.createUser(makeUser())
      await a.setTwoFactor(record(user.id))
      const results = await Promise.all(Array.from({ length: 50 }, () => a.useTwoFactorBackupCode(user.id, "h2")))
      expect(results.filter(Boolean)).toHaveLength(1)
      expect((await a.getTwoFactor(user.id))?.backupCodes).toEqual(["h1", "h3"])
    })

    it("answers false and null for users without a record, and for ids Xata would refuse", async () => {
      for (const id of ["no-such-user", "", "../nextauth_users/x", "a?columns=secret"]) {
        expect(await a.getTwoFactor(id)).toBeNull()
        expect(await a.useTwoFactorStep(id, 1)).toBe(false)
        expect(await a.useTwoFactorBackupCode(id, "h1")).toBe(false)
        await expect(a.deleteTwoFactor(id)).resolves.toBeUndefined()
      }
    })

    it("removes the record with the user and with deleteTwoFactor", async () => {
      const user = await a.createUser(makeUser())
      const other = await a.createUser(makeUser())
      await a.setTwoFactor(record(user.id))
      await a.setTwoFactor(record(other.id))
      await a.deleteTwoFactor(other.id)
      expect(await a.getTwoFactor(other.id)).toBeNull()
      await a.deleteUser(user.id)
      expect(await h.rows(h.tables.twoFactor, { id: user.id })).toEqual([])
    })

    it("fails with a XataAdapterError, never a wrong answer, when Xata is unreachable", async () => {
      const client = new BaseClient({
        databaseURL: h.standIn.databaseURL, apiKey: h.standIn.apiKey, branch: "main",
        fetch: () => Promise.reject(new TypeError("fetch failed")),
      }, h.schema().tables)
      const down = XataAdapter(client, { twoFactor: true }) as Required<Adapter>
      await expect(down.useTwoFactorStep("some-user", 5)).rejects.toThrow(/useTwoFactorStep failed on Xata portcullis:main/)
      await expect(down.useTwoFactorBackupCode("some-user", "h1")).rejects.toThrow(XataAdapterError)
    })

    it("offers no two-factor methods without { twoFactor: true }", () => {
      expect(h.adapter().getTwoFactor).toBeUndefined()
      expect(h.adapter().useTwoFactorStep).toBeUndefined()
    })
  })

  describe("XataAdapter: password hashes (the user_passwords table)", () => {
    const h = new Harness()
    let a: Required<Adapter>
    beforeAll(async () => {
      await h.start()
      a = h.adapter({ passwords: true })
    })
    afterAll(() => h.stop())

    const hash = (tag: string) => `$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$${tag}`

    it("keeps the hash in a user_passwords record whose id is the user id and links to the user", async () => {
      const user = await a.createUser(makeUser())
      await a.setUserPassword(user.id, hash("stored"))
      const rows = await h.rows(h.tables.userPasswords)
      expect(rows.filter((r) => r.id === user.id)).toEqual([expect.objectContaining({ user: user.id, hash: hash("stored") })])
      expect(JSON.stringify(await h.rows(h.tables.users, { id: user.id }))).not.toContain("stored")
    })

    it("replaces the hash in place: 50 writers at once leave one record holding one of their hashes", async () => {
      const user = await a.createUser(makeUser())
      const written = Array.from({ length: 50 }, (_, i) => hash(`writer${i}`))
      await Promise.all(written.map((value) => a.setUserPassword(user.id, value)))
      expect(await h.rows(h.tables.userPasswords, { user: user.id })).toHaveLength(1)
      expect(written).toContain(await a.getUserPassword(user.id))
    })

    it("answers null for ids that are no user, and a path in the id never reaches another record", async () => {
      const user = await a.createUser(makeUser())
      await a.setUserPassword(user.id, hash("target"))
      expect(await a.getUserPassword("")).toBeNull()
      expect(await a.getUserPassword("no-such-user")).toBeNull()
      expect(await a.getUserPassword(`../${h.tables.userPasswords}/${user.id}`)).toBeNull()
      expect(await a.getUserPassword(`${user.id}?columns=hash`)).toBeNull()
    })

    it("refuses a hash for a user that does not exist, writing nothing", async () => {
      await expect(a.setUserPassword("missing-user", hash("orphan"))).rejects.toThrow(/setUserPassword failed on Xata/)
      expect(await h.rows(h.tables.userPasswords, { id: "missing-user" })).toEqual([])
    })

    it("fails with a XataAdapterError naming the operation, never the API key, when Xata is unreachable", async () => {
      const user = await a.createUser(makeUser())
      const client = new BaseClient({
        databaseURL: h.standIn.databaseURL, apiKey: h.standIn.apiKey, branch: "main",
        fetch: () => Promise.reject(new TypeError("fetch failed")),
      }, h.schema().tables)
      const down = XataAdapter(client, { passwords: true }) as Required<Adapter>
      for (const attempt of [down.getUserPassword(user.id), down.setUserPassword(user.id, hash("down"))]) {
        const error = await Promise.resolve(attempt).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(XataAdapterError)
        expect((error as Error).message).toMatch(/UserPassword failed on Xata portcullis:main/)
        expect((error as Error).message).not.toContain(h.standIn.apiKey)
      }
      expect(await a.getUserPassword(user.id)).toBeNull()
    })

    it("offers no password methods without { passwords: true }", () => {
      const plain = h.adapter()
      expect(plain.getUserPassword).toBeUndefined()
      expect(plain.setUserPassword).toBeUndefined()
    })
  })

  describe("XataAdapter: Xata data model", () => {
    const h = new Harness()
    let a: Required<Adapter>
    beforeAll(async () => {
      await h.start()
      a = h.adapter()
    })
    afterAll(() => h.stop())

    const linkOf = (row: Record<string, unknown> | undefined, column: string) => row?.[column]

    it("creates a users_accounts row with each account and removes it on unlink", async () => {
      const user = await a.createUser(makeUser())
      const account = makeAccount(user.id)
      await a.linkAccount(account)
      const [stored] = await h.rows(h.tables.accounts, { providerAccountId: account.providerAccountId })
      expect(linkOf(stored, "user")).toBe(user.id)
      const links = await h.rows(h.tables.usersAccounts, { user: user.id })
      expect(links.map((l) => l.account)).toEqual([stored!.id])

      await a.unlinkAccount(account)
      expect(await h.rows(h.tables.usersAccounts, { user: user.id })).toEqual([])
      expect(await h.rows(h.tables.accounts, { providerAccountId: account.providerAccountId })).toEqual([])
    })

    it("creates a users_sessions row with each session and removes it with the session", async () => {
      const user = await a.createUser(makeUser())
      const [kept, dropped] = [makeSession(user.id), makeSession(user.id)]
      await a.createSession(kept)
      await a.createSession(dropped)
      expect(await h.rows(h.tables.usersSessions, { user: user.id })).toHaveLength(2)

      const [droppedRow] = await h.rows(h.tables.sessions, { sessionToken: dropped.sessionToken })
      await a.deleteSession(dropped.sessionToken)
      const links = await h.rows(h.tables.usersSessions, { user: user.id })
      expect(links).toHaveLength(1)
      expect(links[0]!.session).not.toBe(droppedRow!.id)
    })

    it("deleteUser removes the user's links, accounts, sessions and authenticators", async () => {
      const user = await a.createUser(makeUser())
      const other = await a.createUser(makeUser())
      await a.linkAccount(makeAccount(user.id))
      await a.linkAccount(makeAccount(user.id, { provider: "google" }))
      await a.createSession(makeSession(user.id))
      await a.createAuthenticator(makeAuthenticator(user.id))
      const otherSession = makeSession(other.id)
      await a.createSession(otherSession)

      const deleted = await a.deleteUser(user.id)
      expect(deleted).toMatchObject({ id: user.id, email: user.email })
      for (const table of [h.tables.accounts, h.tables.sessions, h.tables.usersAccounts, h.tables.usersSessions, h.tables.authenticators]) {
        expect(await h.rows(table, { user: user.id }), table).toEqual([])
      }
      expect(await h.rows(h.tables.users, { id: user.id })).toEqual([])
      // Xata empties links to a deleted record rather than deleting the rows: none may be left over.
      for (const table of [h.tables.accounts, h.tables.sessions, h.tables.usersAccounts, h.tables.usersSessions]) {
        const orphans = (await h.rows(table)).filter((row) => row.user === null)
        expect(orphans, table).toEqual([])
      }
      expect((await a.getSessionAndUser(otherSession.sessionToken))?.user.id).toBe(other.id)
    })

    it("reads a session with its user, and a user by account, in one request each", async () => {
      const user = await a.createUser(makeUser())
      const session = makeSession(user.id)
      const account = makeAccount(user.id)
      await a.createSession(session)
      await a.linkAccount(account)

      const requests = h.standIn.requests
      let before = requests.length
      expect((await a.getSessionAndUser(session.sessionToken))?.user.id).toBe(user.id)
      expect(requests.slice(before)).toEqual([`POST /db/portcullis:main/tables/${h.tables.sessions}/query`])

      before = requests.length
      expect((await a.getUserByAccount(account))?.id).toBe(user.id)
      expect(requests.slice(before)).toEqual([`POST /db/portcullis:main/tables/${h.tables.accounts}/query`])
    })

    it("finds accounts written with random record ids (as @auth/xata-adapter wrote them) and keeps them unique", async () => {
      const user = await a.createUser(makeUser())
      const providerAccountId = randomUUID()
      const client = h.client()
      const legacy = await client.db[h.tables.accounts]!.create({
        user: user.id, type: "oauth", provider: "github", providerAccountId, access_token: "old",
      })
      await client.db[h.tables.usersAccounts]!.create({ user: user.id, account: legacy.id })

      expect((await a.getUserByAccount({ provider: "github", providerAccountId }))?.id).toBe(user.id)
      expect(await a.getAccount(providerAccountId, "github")).toMatchObject({ userId: user.id, access_token: "old" })
      await expect(a.linkAccount(makeAccount(user.id, { provider: "github", providerAccountId }))).rejects.toThrow(/already linked/)
      await a.unlinkAccount({ provider: "github", providerAccountId })
      expect(await h.rows(h.tables.usersAccounts, { account: legacy.id })).toEqual([])
    })

    it("stores long tokens (over Xata's 2048-character string limit) in text columns", async () => {
      const user = await a.createUser(makeUser())
      const account = makeAccount(user.id, { access_token: "a".repeat(5000), id_token: "i".repeat(9000) })
      await a.linkAccount(account)
      expect(await a.getAccount(account.providerAccountId, account.provider)).toMatchObject({
        access_token: account.access_token, id_token: account.id_token,
      })
    })

    it("leaves out account fields that have no column", async () => {
      const user = await a.createUser(makeUser())
      const account = { ...makeAccount(user.id), expires_in: 3600, authorization_details: [{ type: "x" }] }
      await a.linkAccount(account)
      const found = await a.getAccount(account.providerAccountId, account.provider)
      expect(found).not.toHaveProperty("expires_in")
      expect(found).not.toHaveProperty("authorization_details")
    })

    it("works with a client that reads the schema from the branch", async () => {
      const plain = h.adapter({ tables: false })
      const before = h.standIn.requests.length
      const user = await plain.createUser(makeUser({ emailVerified: new Date("2024-05-06T07:08:09.010Z") }))
      expect(h.standIn.requests.slice(before)).toContain("GET /db/portcullis:main")
      const found = await plain.getUser(user.id)
      expect(found?.emailVerified).toEqual(new Date("2024-05-06T07:08:09.010Z"))
      const token = makeVerificationToken()
      await plain.createVerificationToken(token)
      expect((await plain.useVerificationToken(token))?.expires.getTime()).toBe(token.expires.getTime())
    })

    it("names the database and branch in errors (never the API key)", async () => {
      const wrongBranch = h.adapter({ branch: "preview" })
      const error = await Promise.resolve(wrongBranch.getUserByEmail("a@example.com")).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(XataAdapterError)
      expect((error as Error).message).toContain(`getUserByEmail failed on Xata portcullis:preview at ${h.standIn.workspaceHost}`)
      expect((error as Error).message).not.toContain(h.standIn.apiKey)
    })

    it("points at the schema when the authenticators table is missing", async () => {
      const tables = xataSchema().tables.filter((t) => t.name !== h.tables.authenticators)
      const client = new BaseClient({ databaseURL: h.standIn.databaseURL, fetch: h.standIn.fetch, apiKey: h.standIn.apiKey, branch: "main" }, tables)
      const adapter = XataAdapter(client) as Required<Adapter>
      const user = await adapter.createUser(makeUser())
      await expect(adapter.createAuthenticator(makeAuthenticator(user.id))).rejects.toThrow(/passkeys need the nextauth_authenticators table/)
    })
  })

  describe("XataAdapter on an Auth.js-era database (no authenticators table)", () => {
    const h = new Harness("nextauth_", false)
    beforeAll(() => h.start())
    afterAll(() => h.stop())

    it("runs everything but passkeys, and deleteUser skips the missing table", async () => {
      const a = h.adapter()
      const user = await a.createUser(makeUser())
      await a.linkAccount(makeAccount(user.id))
      await a.createSession(makeSession(user.id))
      await expect(a.deleteUser(user.id)).resolves.toMatchObject({ id: user.id })
      expect(await h.rows(h.tables.users, { id: user.id })).toEqual([])
      expect(await h.rows(h.tables.usersSessions)).toEqual([])
      await expect(a.createAuthenticator(makeAuthenticator(user.id))).rejects.toThrow(/passkeys need the nextauth_authenticators table/)
      expect(await Promise.resolve(a.listAuthenticatorsByUserId(user.id)).then(() => "listed", (e: Error) => e.message))
        .toMatch(/passkeys need the nextauth_authenticators table/)
      expect(a.getUserPassword).toBeUndefined()
      expect(a.getTwoFactor).toBeUndefined()
    })
  })

  describe("XataAdapter with a custom table prefix", () => {
    const h = new Harness("auth_")
    beforeAll(() => h.start())
    afterAll(() => h.stop())

    it("uses <prefix>* tables", async () => {
      const a = h.adapter()
      const user = await a.createUser(makeUser())
      const session = makeSession(user.id)
      await a.createSession(session)
      expect(await h.rows("auth_users", { id: user.id })).toHaveLength(1)
      expect(await h.rows("auth_users_sessions", { user: user.id })).toHaveLength(1)
      expect((await a.getSessionAndUser(session.sessionToken))?.user.email).toBe(user.email)
    })

    it("fails plainly when the prefix does not match the database", async () => {
      const client = new BaseClient({ databaseURL: h.standIn.databaseURL, fetch: h.standIn.fetch, apiKey: h.standIn.apiKey, branch: "main" }, [])
      const adapter = XataAdapter(client) as Required<Adapter>
      await expect(adapter.getUserByEmail("a@example.com")).rejects.toThrow(/table \[nextauth_users\] not found/)
    })
  })
})

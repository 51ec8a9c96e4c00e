/**
 * Attacks on the credentials lockout's identifier (docs/rate-limiting.md, "The credentials
 * lockout"): once an account is locked, can the attacker keep guessing its password by
 * naming the same account differently?
 *
 * The app under attack is the common one: `authorize()` looks the user up in MariaDB with
 * `WHERE username = ?` through mysql2 (the database's default collation, utf8mb4_general_ci,
 * which ignores case and accents), and checks the password. Whatever the database takes for
 * the same user must count against the same lockout counter.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPool, type Pool, type RowDataPacket } from "mysql2/promise"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { normaliseIdentifier } from "../../../src/lib/rate-limit/limiter.js"
import { Browser, SECRET } from "../../helpers.js"
import { mysqlService, serviceAvailable } from "@portcullis/adapter-test"

const table = `atk1125_users_${process.pid}`
const password = "correct horse battery staple"
let pool: Pool

// Needs MariaDB/MySQL (PORTCULLIS_MYSQL_URL or the loopback default): skipped without it locally,
// failing without it in CI, through the one service gate.
const service = mysqlService()
const mariadb = await serviceAvailable(service, async () => {
  const probe = createPool({ uri: service.url, connectionLimit: 1 })
  try {
    await probe.query("SELECT 1")
  } finally {
    await probe.end()
  }
})

mariadb.describe("the credentials lockout against a MariaDB lookup", () => {
  beforeAll(async () => {
    pool = createPool({ uri: service.url, connectionLimit: 2 })
    await pool.query(`CREATE TABLE ${table} (id VARCHAR(40) PRIMARY KEY, username VARCHAR(100) NOT NULL UNIQUE, password VARCHAR(100) NOT NULL) DEFAULT CHARSET utf8mb4`)
    await pool.query(`INSERT INTO ${table} VALUES ('user-ada', 'ada', ?), ('user-bob', 'bob', ?)`, [password, password])
  })
  afterAll(async () => {
    await pool.query(`DROP TABLE IF EXISTS ${table}`)
    await pool.end()
  })

  /** The app: credentials looked up in MariaDB, rate limiting on with its defaults. */
  function app() {
    let authorized: string[] = []
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: false,
      trustedOrigins: ["http://localhost:3000"],
      rateLimit: {},
      logger: { error: () => {}, warn: () => {}, debug: () => {} },
      providers: [
        Credentials({
          credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
          async authorize(credentials) {
            const [rows] = await pool.query<RowDataPacket[]>(`SELECT id, password FROM ${table} WHERE username = ?`, [credentials.username])
            const row = rows[0]
            if (!row || row.password !== credentials.password) return null
            authorized.push(row.id as string)
            return { id: row.id as string, name: row.id as string }
          },
        }),
      ],
    }
    const auth = createAuth(config)
    const browser = () => new Browser((request) => auth.handle(request, { clientAddress: "198.51.100.7" }))
    return { browser, authorized: () => authorized, reset: () => (authorized = []) }
  }

  async function post(browser: Browser, body: Record<string, unknown>) {
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/callback/credentials", { json: { ...body, csrfToken }, headers: { "x-auth-return-redirect": "1" } })
    return { status: response.status, body: (await response.json()) as { url?: string; error?: string } }
  }

  /** Locks `ada` out: five wrong passwords, then the sixth attempt is refused. */
  async function lockAda(browser: Browser) {
    for (let i = 0; i < 5; i++) expect((await post(browser, { username: "ada", password: `guess-${i}` })).status).toBe(200)
    expect((await post(browser, { username: "ada", password })).status).toBe(429)
  }

  describe("the lockout holds when the account is named the way the lockout counts it", () => {
    it("a locked account refuses its right password; another account is unaffected", async () => {
      const { browser, authorized } = app()
      const b = browser()
      await lockAda(b)
      expect((await post(b, { username: "ADA ", password })).status).toBe(429)
      expect(authorized()).toEqual([])
      expect((await post(b, { username: "bob", password })).status).toBe(200)
      expect(authorized()).toEqual(["user-bob"])
    })
  })

  describe("a non-string identifier in a JSON body is counted, not skipped", () => {
    // `{"username": ["ada"]}`: the lockout saw no string and counted nothing, while mysql2
    // expands the array to `'ada'` and authorize() found ada — unlimited guesses for ada.
    it("after ada is locked, her right password sent as [\"ada\"] is refused", async () => {
      const { browser, authorized } = app()
      const b = browser()
      await lockAda(b)
      const sneaky = await post(b, { username: ["ada"], password })
      expect(sneaky.status).toBe(429)
      expect(authorized()).toEqual([])
    })

    it("guesses sent as [\"ada\"] count toward ada's lockout", async () => {
      const { browser, authorized } = app()
      const b = browser()
      for (let i = 0; i < 5; i++) await post(b, { username: ["ada"], password: `guess-${i}` })
      expect((await post(b, { username: "ada", password })).status).toBe(429)
      expect(authorized()).toEqual([])
    })

    it("numbers, booleans and objects are counted too (one counter per value)", () => {
      expect(normaliseIdentifier(["Ada"])).toBe("ada")
      expect(normaliseIdentifier(12345)).toBe("12345")
      expect(normaliseIdentifier({ a: 1 })).toBeDefined()
      expect(normaliseIdentifier(null)).toBeUndefined()
      expect(normaliseIdentifier(undefined)).toBeUndefined()
    })
  })

  describe("spellings the database takes for the same user share the lockout counter", () => {
    // MariaDB's utf8mb4_general_ci says 'ada' = 'ádá' = 'ǎda' = 'ADA': each spelling was a
    // fresh counter of 5 guesses against the same account.
    it.each([["ádá"], ["ǎda"], ["ad\u0061\u0301"], ["AD\u00c1"], ["ÅDA"]])("after ada is locked, %s with her right password is refused", async (spelling) => {
      const { browser, authorized } = app()
      const b = browser()
      await lockAda(b)
      expect((await post(b, { username: spelling, password })).status).toBe(429)
      expect(authorized()).toEqual([])
    })

    it("invisible characters (soft hyphen, zero-width space) and the Turkish capital İ do not make a new counter", () => {
      const base = normaliseIdentifier("alice")
      for (const variant of ["ali\u00adce", "ali\u200bce", "\u2060alice", "ALİCE", "ａｌｉｃｅ", " Alice\t"]) expect(normaliseIdentifier(variant)).toBe(base)
    })
  })

  describe("the allow-list is folded as the identifiers are", () => {
    it("an allow-listed name with accents stays allow-listed (never locked), and its neighbours are not", async () => {
      const { lockoutApp, attempt } = await import("../../rate-limit/support.js")
      const { browser } = lockoutApp({ allowList: ["Jösé"] })
      const b = browser()
      const errors = []
      for (let i = 0; i < 7; i++) errors.push((await attempt(b, { username: "jösé", password: `guess-${i}` })).error)
      expect(errors).toEqual(Array(7).fill("CredentialsSignin"))
      for (let i = 0; i < 6; i++) errors.push((await attempt(b, { username: "josefa", password: `guess-${i}` })).error)
      expect(errors.at(-1)).toBe("RateLimited")
    })
  })

  describe("50 attempts at once under 50 spellings of one name", () => {
    it("exactly five reach authorize(), the rest are refused", async () => {
      const { lockoutApp, attempt } = await import("../../rate-limit/support.js")
      const { browser, calls } = lockoutApp()
      const spellings = ["ada", "ADA", "Ada ", "ádá", "ǎda", "ad\u00ada", "a\u200bda", "ａｄａ", "AD\u00c1", "ÅDA"]
      const b = browser()
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => attempt(b, { username: spellings[i % spellings.length]!, password: `guess-${i}` })))
      expect(calls.authorize).toBe(5)
      expect(results.filter((r) => r.error === "RateLimited")).toHaveLength(45)
    })
  })
})

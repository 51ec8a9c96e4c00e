/**
 * Issue 32, attacker's pass: text a person writes into the account center that is not a name
 * — control characters, NUL (which PostgreSQL's `text` cannot hold), bidirectional overrides
 * that make a name read as something else in the admin list — and a notice line a phishing
 * link writes through the page's query.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { SqlTestDatabase } from "../../../sql-adapter/test/harness.js"
import { postgres, postgresGate } from "../../../organizations/test/sql-harness.js"
import { plantPasskey, testbed } from "../support.js"

const HOSTILE_NAMES = {
  NUL: "Ada\u0000Lovelace",
  BEL: "Ada\u0007",
  "a line break": "Ada\r\nBcc: mallory@example.com",
  "a right-to-left override": "Ada \u202Egnp.exe",
  "a bidi isolate": "Ada\u2066admin\u2069",
  "a C1 control": "Ada\u0085",
} as const

describe("a name with control characters", () => {
  it.each(Object.entries(HOSTILE_NAMES))("%s is refused 422 and nothing is stored (memory adapter)", async (_, name) => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const answer = await ada.post("profile", { name })
    expect(answer.status).toBe(422)
    expect(answer.body.error).toBe("invalid-input")
    expect((await bed.adapter.getUser!(ada.id))!.name).toBeNull()
  })

  it("letters of every script, marks, emoji and joiners in them stay a name", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const name of ["Ada Lovelace", "Zoë Ångström", "محمد", "李小龍", "👩‍💻 Ada", "नमस्ते"]) {
      const answer = await ada.post("profile", { name })
      expect(answer.status, name).toBe(200)
      expect((await bed.adapter.getUser!(ada.id))!.name).toBe(name)
    }
  })
})

postgresGate.describe("a name with NUL on PostgreSQL", () => {
  const database = new SqlTestDatabase("postgres", (config) => createPostgresKysely(postgres.url, config))
  beforeAll(async () => {
    database.open(false)
    await database.migrate()
  })
  afterAll(() => database.close())
  beforeEach(async () => {
    const t = database.tables
    for (const table of [t.auditRecords, t.passwords, t.twoFactor, t.locks, t.sessionRegistry, t.authenticators, t.verificationTokens, t.sessions, t.accounts, t.users]) await database.db.deleteFrom(table).execute()
  })

  it("is a 422 from the account center, not a 500 from the database, and the log holds no stack", async () => {
    const bed = testbed({ strategy: "database", adapter: database.adapter({ passwords: true, sessionMetadata: true }) })
    const ada = await bed.person("ada")
    const answer = await ada.post("profile", { name: HOSTILE_NAMES.NUL })
    expect(answer.status).toBe(422)
    const form = await ada.form("profile", { name: HOSTILE_NAMES.NUL })
    expect(form.status).toBe(302)
    expect(form.location).toContain("problem=invalid-input")
    expect((await bed.adapter.getUser!(ada.id))!.name).toBeNull()
    expect(bed.log.lines.join("\n")).not.toMatch(/\n    at /)
  })
})

describe("the page's notice line, written by a link", () => {
  it("shows a known notice only; an unknown one shows nothing of the link's words", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const phishing = "Your account is locked. Call +1-555-0100 now"
    const { html } = await ada.page(`?notice=${encodeURIComponent(phishing)}`)
    expect(html).not.toContain("Call +1-555-0100")
    expect(html).not.toContain("notice.")
    expect((await ada.page("?notice=saved")).html).toContain('role="status">Saved.')
  })

  it("takes the count of signed-out sessions as digits only", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { html } = await ada.page(`?notice=revokedOthers&count=${encodeURIComponent("ALL. Call +1-555-0100")}`)
    expect(html).not.toContain("Call +1-555-0100")
    expect(html).toContain("Other sessions signed out: 0.")
    expect((await ada.page("?notice=revokedOthers&count=3")).html).toContain("Other sessions signed out: 3.")
  })
})

describe("a passkey's name with control characters", () => {
  it.each(Object.entries(HOSTILE_NAMES))("%s is refused 422 and the old name stays", async (_, name) => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await plantPasskey(bed.adapter, ada.id, "cred-ada", "Laptop")
    const answer = await ada.post("passkeys/cred-ada/rename", { name })
    expect(answer.status).toBe(422)
    expect((await bed.adapter.getAuthenticator!("cred-ada"))!.name).toBe("Laptop")
  })
})

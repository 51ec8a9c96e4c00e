/**
 * Issue 32, attacker's pass: accounts racing for one address. Ten accounts each ask to move
 * to the same free address and every link is confirmed at the same moment (the address's
 * owner opens them all, or a script holding the mails does): all pass the "is it taken?" read
 * before any writes. One account must get the address; the others a refusal (410, "link
 * invalid"), never a 500/503, and never two users with one address. Found: on PostgreSQL the
 * losers got 503 (the unique index's violation, answered as an outage); fixed in core's
 * `extensions/account/email.ts`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { SqlTestDatabase } from "../../../sql-adapter/test/harness.js"
import { postgres, postgresGate } from "../../../organizations/test/sql-harness.js"
import { testbed } from "../support.js"

async function race(adapter: Adapter | undefined, strategy: "jwt" | "database") {
  const bed = testbed({ strategy, ...(adapter && { adapter }) })
  const target = "contested@example.com"
  const people = await Promise.all(["ada", "bob", "cyd", "dee", "eve", "fay", "gus", "hal", "ivy", "jon"].map((n) => bed.person(n)))
  const tokens: string[] = []
  for (const p of people) {
    expect((await p.post("email", { email: target })).status).toBe(200)
    tokens.push(bed.mail.sent.filter((m) => m.to === target).map((m) => new URL(m.url).searchParams.get("token")!).at(-1)!)
  }
  // Twenty confirmations at once: each person's link twice.
  const answers = await Promise.all(people.flatMap((p, i) => [p.post("email/confirm", { email: target, token: tokens[i] }), p.post("email/confirm", { email: target, token: tokens[i] })]))
  const statuses = answers.map((a) => a.status)
  expect(statuses.filter((s) => s === 200), statuses.join(",")).toHaveLength(1)
  expect(statuses.every((s) => s === 200 || s === 410), statuses.join(",")).toBe(true)
  const owners = (await Promise.all(people.map((p) => bed.adapter.getUser!(p.id)))).filter((u) => u?.email === target)
  expect(owners).toHaveLength(1)
  expect(bed.log.lines.join("\n")).not.toMatch(/\n\s+at /)
}

describe("ten accounts confirming a move to one address at once", () => {
  it("memory adapter: one gets it, the rest are refused", () => race(undefined, "jwt"))
})

postgresGate.describe("ten accounts confirming a move to one address at once (PostgreSQL)", () => {
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

  it("one gets it, the rest are refused 410 — not a 503 from the unique index", () => race(database.adapter({ passwords: true, sessionMetadata: true }), "database"))
})

// Single use across instances (STYLE.md §20): two Node processes, each with its own
// connection to one PostgreSQL, confirm the same email-change token 25 times each at once;
// exactly one changes the address.
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { askAll, startWorkers } from "@portcullis/adapter-test"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { SqlTestDatabase } from "../../sql-adapter/test/harness.js"
import { postgres, postgresGate } from "../../organizations/test/sql-harness.js"
import { SECRET } from "../../core/test/helpers.js"
import { testbed } from "./support.js"

const worker = fileURLToPath(new URL("./fixtures/confirm-worker.ts", import.meta.url))

postgresGate.describe("two instances on one PostgreSQL", () => {
  const database = new SqlTestDatabase("postgres", (config) => createPostgresKysely(postgres.url, config))
  beforeAll(async () => {
    database.open(false)
    await database.migrate()
  })
  afterAll(() => database.close())

  it("of 2 × 25 concurrent confirmations of one email-change token, exactly one changes the address", async () => {
    const bed = testbed({ strategy: "database", adapter: database.adapter({ passwords: true, sessionMetadata: true }) })
    const ada = await bed.person("ada")
    expect((await ada.post("email", { email: "countess@example.com" })).status).toBe(200)
    const link = bed.linkFor("countess@example.com")
    const csrfToken = await ada.browser.csrfToken()
    const options = { url: postgres.url, prefix: database.prefix, secret: SECRET, origin: ada.browser.origin, cookie: ada.browser.cookieHeader(), csrfToken, email: link.email, token: link.token, count: 25 }
    // Both ready before either starts, so the 50 confirmations overlap.
    const workers = await startWorkers(worker, [options, options])
    try {
      const statuses = (await askAll(workers, "go")).flatMap((line) => JSON.parse(line) as number[])
      expect(statuses).toHaveLength(50)
      expect(statuses.filter((s) => s === 200)).toHaveLength(1)
      expect(statuses.filter((s) => s === 410)).toHaveLength(49)
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "countess@example.com" })
    } finally {
      for (const w of workers) w.stop()
    }
  }, 90_000)
})

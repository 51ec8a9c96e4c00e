// Single use across instances (STYLE.md §20): two Node processes, each with its own
// connection to one PostgreSQL, confirm the same email-change token 25 times each at once;
// exactly one changes the address.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { SqlTestDatabase } from "../../sql-adapter/test/harness.js"
import { postgres, postgresGate } from "../../organizations/test/sql-harness.js"
import { SECRET } from "../../core/test/helpers.js"
import { testbed } from "./support.js"

const worker = fileURLToPath(new URL("./fixtures/confirm-worker.ts", import.meta.url))

function nextLine(child: ChildProcessWithoutNullStreams): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = ""
    let stderr = ""
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString()
      const end = buffered.indexOf("\n")
      if (end < 0) return
      child.stdout.off("data", onData)
      child.off("exit", onExit)
      resolve(buffered.slice(0, end))
    }
    const onExit = (code: number | null) => reject(new Error(`worker exited (${code}) before answering: ${stderr}`))
    child.stdout.on("data", onData)
    child.stderr.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    child.once("exit", onExit)
  })
}

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
    const children = ["a", "b"].map(() => spawn(process.execPath, ["--no-warnings", worker, JSON.stringify(options)], { stdio: ["pipe", "pipe", "pipe"] }))
    try {
      expect(await Promise.all(children.map(nextLine))).toEqual(["ready", "ready"])
      const answers = children.map(nextLine)
      for (const child of children) child.stdin.write("go\n")
      const statuses = (await Promise.all(answers)).flatMap((line) => JSON.parse(line) as number[])
      expect(statuses).toHaveLength(50)
      expect(statuses.filter((s) => s === 200)).toHaveLength(1)
      expect(statuses.filter((s) => s === 410)).toHaveLength(49)
      expect(await bed.adapter.getUser!(ada.id)).toMatchObject({ email: "countess@example.com" })
    } finally {
      for (const child of children) if (child.exitCode === null) child.kill()
    }
  }, 90_000)
})

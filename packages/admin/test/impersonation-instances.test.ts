/**
 * Two instances, one impersonation store (Redis, then PostgreSQL): an impersonation started
 * here is shown and ended by another Node process — the banner's field there, the admin's own session back
 * from there — and a copy of the ended session is refused here, since the record both read
 * says it ended. (JWT sessions, shared secret; the worker runs the built packages.)
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { ImpersonationStore } from "@portcullis/admin"
import { redisImpersonationStore } from "@portcullis/admin/redis"
import { migrateAdmin, sqlImpersonationStore } from "@portcullis/admin/sql"
import { createPostgresKysely } from "@portcullis/sql-adapter"
import { SECRET } from "../../core/test/helpers.js"
import { connectRedis, deleteKeys, redis, redisGate } from "../../organizations/test/redis-harness.js"
import { postgres, postgresGate } from "../../organizations/test/sql-harness.js"
import { testbed } from "./support.js"
import { nextLine } from "./worker-process.js"

const worker = fileURLToPath(new URL("./fixtures/impersonation-worker.ts", import.meta.url))

/** The other instance, on the store `kind` at `url` under `prefix`. */
function otherInstance(kind: "redis" | "postgres", url: string, prefix: string) {
  let child: ChildProcessWithoutNullStreams
  return {
    async start() {
      // A checkout whose node_modules link elsewhere may point the worker at its own build (a resolve hook).
      const hook = process.env.PORTCULLIS_WORKER_IMPORT ? ["--import", process.env.PORTCULLIS_WORKER_IMPORT] : []
      child = spawn(process.execPath, ["--no-warnings", ...hook, worker, JSON.stringify({ kind, url, prefix, secret: SECRET })], { stdio: ["pipe", "pipe", "pipe"] })
      expect(await nextLine(child)).toBe("ready")
    },
    stop: () => child?.kill(),
    async ask(command: "session" | "end", cookie: string) {
      const answer = nextLine(child)
      child.stdin.write(`${command} ${cookie}\n`)
      return JSON.parse(await answer) as { status: number; body: any; cookies?: string[] }
    },
  }
}

/** Started here with `store`, shown and ended there, refused here afterwards. */
async function startedHereEndedThere(store: ImpersonationStore, there: ReturnType<typeof otherInstance>["ask"]) {
  const bed = testbed({ config: { session: { strategy: "jwt" } }, extension: { impersonation: { store } } })
  const ada = await bed.person("ada")
  await bed.person("bob")
  const adaToken = ada.browser.jar.get("authjs.session-token")!.value
  expect((await ada.post("users/user-bob/impersonate")).status).toBe(200)
  const impersonated = ada.browser.cookieHeader()

  const seen = await there("session", impersonated)
  expect(seen.body.user.email).toBe("bob@example.com")
  expect(seen.body.admin.impersonatedBy).toEqual({ id: "user-ada", email: "ada@example.com" })

  const ended = await there("end", impersonated)
  expect(ended.body).toEqual({ userId: "user-bob", restored: true })
  const restored = ended.cookies!.find((c) => c.startsWith("authjs.session-token=") && !/Max-Age=0/i.test(c))!
  expect(restored.split(";")[0]).toBe(`authjs.session-token=${adaToken}`)
  expect(ended.cookies!.some((c) => /^authjs\.impersonator=;/.test(c))).toBe(true)

  // The impersonated cookie, replayed here after the end there: the shared record refuses it.
  const replay = await ada.browser.request("/auth/session", { headers: { cookie: impersonated } })
  expect(await replay.json()).toBeNull()
  expect(bed.events()).toEqual(["impersonationStarted/success"])
}

redisGate.describe("impersonation across two instances on one Redis", () => {
  const prefix = `portcullis-test:impersonation:${randomBytes(4).toString("hex")}:`
  const client = connectRedis()
  const other = otherInstance("redis", redis.url, prefix)
  beforeAll(async () => {
    await client.connect()
    await other.start()
  }, 30_000)
  afterAll(async () => {
    other.stop()
    await deleteKeys(client, prefix)
    await client.quit()
  })

  it("started here, shown and ended there: the admin's own session comes back, and the ended one is refused here", async () => {
    await startedHereEndedThere(redisImpersonationStore(client, { prefix }), other.ask)
  }, 30_000)
})

postgresGate.describe("impersonation across two instances on one PostgreSQL", () => {
  const tablePrefix = `t${randomBytes(4).toString("hex")}_`
  const db = createPostgresKysely(postgres.url)
  const other = otherInstance("postgres", postgres.url, tablePrefix)
  beforeAll(async () => {
    await migrateAdmin(db, { tablePrefix })
    await other.start()
  }, 30_000)
  afterAll(async () => {
    other.stop()
    for (const table of ["admin_bans", "admin_impersonations", "admin_migrations", "admin_migrations_lock"]) {
      await db.schema.dropTable(`${tablePrefix}${table}`).ifExists().execute()
    }
    await db.destroy()
  })

  it("started here, shown and ended there: the admin's own session comes back, and the ended one is refused here", async () => {
    await startedHereEndedThere(sqlImpersonationStore(db, { tablePrefix }), other.ask)
  }, 30_000)
})

/**
 * The shared pieces of the store suites: the two-process line protocol, SQL backends with
 * random prefixes and their cleanup, the SQL gates, and Redis prefixes and their cleanup.
 */
import { once } from "node:events"
import { randomBytes } from "node:crypto"
import { readdir, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Kysely } from "kysely"
import { describe, expect, it } from "vitest"
import { askAll, mysqlAvailable, postgresAvailable, redisAvailable, startWorkers, type LineWorker } from "@portcullis/adapter-test"
import { dropTables, prefixedSchemas, randomTablePrefix, sqliteBackend } from "@portcullis/adapter-test/sql"
import { alive } from "@portcullis/adapter-test/throwaway"
import { connectRedis, deleteKeys, openRedisPrefix, randomKeyPrefix } from "@portcullis/adapter-test/redis"

const worker = fileURLToPath(new URL("./fixtures/line-worker.ts", import.meta.url))

async function exited(w: LineWorker): Promise<void> {
  if (w.child.exitCode === null && w.child.signalCode === null) await once(w.child, "exit")
}

describe("the two-process line protocol", () => {
  it("starts every worker with its own options and collects one answer each, in worker order", async () => {
    const workers = await startWorkers(worker, [{ name: "a" }, { name: "b" }])
    try {
      expect(await askAll(workers, "echo hello there")).toEqual(["a:hello there", "b:hello there"])
      expect(await workers[1]!.ask("echo again")).toBe("b:again")
    } finally {
      for (const w of workers) w.stop()
    }
  })

  it("fails with the worker's stderr when one never comes up, and stops the others", async () => {
    const pidFile = join(tmpdir(), `portcullis-line-worker-${randomBytes(4).toString("hex")}.pid`)
    const started = startWorkers(worker, [{ name: "a", pidFile }, { name: "b", failStart: true, failAfter: pidFile }])
    await expect(started).rejects.toThrow(/worker exited \(2\) before answering: b cannot reach its store/)
    const pid = Number(await readFile(pidFile, "utf8"))
    await rm(pidFile)
    // The healthy one was killed, not left running after the suite.
    await expect.poll(() => alive(pid)).toBe(false)
  })

  it("fails, rather than hangs, when a worker dies before answering", async () => {
    const workers = await startWorkers(worker, [{ name: "a" }])
    try {
      await expect(workers[0]!.ask("crash")).rejects.toThrow(/exited \(3\) before answering: store connection lost/)
    } finally {
      for (const w of workers) w.stop()
    }
  })

  it("lets a one-shot worker leave after its answer, and ignores lines that are not commands", async () => {
    const [w] = await startWorkers(worker, [{ name: "a", once: true }])
    w!.child.stdin.write("noise\n")
    expect(await w!.ask("echo go")).toBe("a:go")
    await exited(w!)
    expect(w!.child.exitCode).toBe(0)
  })
})

describe("SQL backends", () => {
  it("gives every schema a prefix of its own", () => {
    const prefixes = new Set(Array.from({ length: 100 }, () => randomTablePrefix("pct")))
    expect(prefixes.size).toBe(100)
    for (const prefix of prefixes) expect(prefix).toMatch(/^pct[0-9a-f]{8}_$/)
  })

  it("migrates each schema under a prefix of its own, drops exactly its tables, and deletes the SQLite file", async () => {
    const tag = `adapter-test-${randomBytes(4).toString("hex")}`
    const files = async () => (await readdir(tmpdir())).filter((name) => name.startsWith(`portcullis-${tag}-`))
    const backend = sqliteBackend(tag)
    const schemas = prefixedSchemas({
      tag: "pct",
      async migrate(db, prefix) {
        await db.schema.createTable(`${prefix}parent`).addColumn("id", "integer", (c) => c.primaryKey()).execute()
        await db.schema.createTable(`${prefix}child`).addColumn("id", "integer", (c) => c.primaryKey()).execute()
      },
      tables: (prefix) => [`${prefix}child`, `${prefix}parent`],
    })
    const first = await schemas.open(backend)
    const second = await schemas.open(backend)
    expect(first.tablePrefix).not.toBe(second.tablePrefix)
    const other = backend.connect()
    try {
      await other.schema.createTable("unrelated").addColumn("id", "integer").execute()
      await first.drop()
      const names = (await other.introspection.getTables()).map((t) => t.name).sort()
      // The other schema on the same database, and the table no schema owns, are untouched.
      expect(names).toEqual([`${second.tablePrefix}child`, `${second.tablePrefix}parent`, "unrelated"].sort())
      await schemas.drop(second.db, second.tablePrefix)
      expect((await other.introspection.getTables()).map((t) => t.name)).toEqual(["unrelated"])
    } finally {
      await other.destroy()
    }
    expect((await files()).length).toBeGreaterThan(0)
    await backend.cleanup!()
    expect(await files()).toEqual([])
  })

  it("closes the connection when a drop fails, and reports the failure", async () => {
    let destroyed = false
    const failing = {
      schema: { dropTable: () => ({ ifExists: () => ({ execute: () => Promise.reject(new Error("connection reset")) }) }) },
      destroy: async () => void (destroyed = true),
    } as unknown as Kysely<any>
    await expect(dropTables(failing, ["t"])).rejects.toThrow("connection reset")
    expect(destroyed).toBe(true)
  })

  it("reports a server that does not answer as unavailable, without throwing", async () => {
    // Port 1 refuses at once on loopback.
    const env = { PORTCULLIS_PG_URL: "postgres://postgres@127.0.0.1:1/test", PORTCULLIS_MYSQL_URL: "mysql://root@127.0.0.1:1/test", CI: "" }
    const [pgGate, mysqlGate] = await Promise.all([postgresAvailable(env), mysqlAvailable(env)])
    expect(pgGate.available).toBe(false)
    expect(pgGate.error).toBeInstanceOf(Error)
    expect(mysqlGate.available).toBe(false)
    expect(mysqlGate.error).toBeInstanceOf(Error)
  })
})

const redisGate = await redisAvailable()

redisGate.describe("Redis prefixes", () => {
  it("deletes every key under its prefix on close, and no other key", async () => {
    const neighbour = connectRedis()
    await neighbour.connect()
    const outside = `${randomKeyPrefix("adapter-test")}kept`
    const { client, prefix, close } = await openRedisPrefix("adapter-test")
    try {
      await neighbour.set(outside, "1", "EX", 60)
      // More keys than one SCAN batch returns.
      for (let n = 0; n < 1_200; n += 200) {
        await client.mset(...Array.from({ length: 200 }, (_, i) => [`${prefix}k${n + i}`, "v"]).flat())
      }
      await close()
      expect(await neighbour.keys(`${prefix}*`)).toEqual([])
      expect(await neighbour.get(outside)).toBe("1")
    } finally {
      await deleteKeys(neighbour, outside)
      await neighbour.quit()
    }
  })

  it("fails fast on a Redis that is not there, instead of retrying forever", async () => {
    const client = connectRedis("redis://127.0.0.1:1")
    const started = Date.now()
    await expect(client.connect()).rejects.toThrow()
    expect(Date.now() - started).toBeLessThan(5_000)
    client.disconnect()
  })
})

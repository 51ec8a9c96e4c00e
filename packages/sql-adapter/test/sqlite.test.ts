import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { createSqliteKysely } from "@portcullis/sql-adapter"
import { runSqlSuites } from "./harness.js"

// Both suites share one file (their tables have distinct prefixes); it and its WAL side
// files go when the second suite has closed.
const file = join(tmpdir(), `portcullis-${crypto.randomUUID()}.db`)
runSqlSuites("SQLite (node:sqlite)", "sqlite", (config) => createSqliteKysely(file, config), async () => {
  for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
})

describe("createSqliteKysely", () => {
  it("stores dates as ISO 8601 text and booleans as integers", async () => {
    const db = createSqliteKysely(":memory:")
    try {
      await db.schema.createTable("t").addColumn("d", "text").addColumn("b", "integer").execute()
      await db.insertInto("t").values({ d: new Date("2024-05-06T07:08:09.010Z"), b: true }).execute()
      expect(await db.selectFrom("t").selectAll().execute()).toEqual([{ d: "2024-05-06T07:08:09.010Z", b: 1 }])
    } finally {
      await db.destroy()
    }
  })

  it("enforces foreign keys", async () => {
    const db = createSqliteKysely(":memory:")
    try {
      await db.schema.createTable("parent").addColumn("id", "text", (c) => c.primaryKey()).execute()
      await db.schema.createTable("child").addColumn("parentId", "text", (c) => c.references("parent.id")).execute()
      await expect(db.insertInto("child").values({ parentId: "missing" }).execute()).rejects.toThrow(/FOREIGN KEY/)
    } finally {
      await db.destroy()
    }
  })
})

describe("migrations while another table is dropped", () => {
  it("try the setup again when a table vanished while Kysely's migrator listed the schema", async () => {
    const { migrateToLatest } = await import("@portcullis/sql-adapter")
    const file = join(tmpdir(), `pcl-migrate-race-${process.pid}-${Date.now()}.db`)
    let failures = 2
    // The first two queries fail as PostgreSQL fails a listing whose table another client
    // dropped meanwhile (42P01); the third attempt runs normally.
    const vanished = {
      transformQuery(args: { node: never }) {
        if (failures > 0) {
          failures--
          throw Object.assign(new Error('relation "public.someone_elses_table" does not exist'), { code: "42P01" })
        }
        return args.node
      },
      transformResult: async (args: { result: never }) => args.result,
    }
    const db = createSqliteKysely(file).withPlugin(vanished)
    try {
      const applied = await migrateToLatest(db, { dialect: "sqlite" })
      expect(applied.length).toBeGreaterThan(0)
      expect(failures).toBe(0)
    } finally {
      await db.destroy()
      await rm(file, { force: true })
    }
  })

  it("still fail on any other setup error, and after three vanished tables in a row", async () => {
    const { migrateToLatest } = await import("@portcullis/sql-adapter")
    const file = join(tmpdir(), `pcl-migrate-fail-${process.pid}-${Date.now()}.db`)
    const always = (code: string) => ({
      transformQuery(): never {
        throw Object.assign(new Error("refused"), { code })
      },
      transformResult: async (args: { result: never }) => args.result,
    })
    for (const code of ["42P01", "28P01"]) {
      const db = createSqliteKysely(file).withPlugin(always(code))
      try {
        await expect(migrateToLatest(db, { dialect: "sqlite" })).rejects.toThrow(/migration \(setup\) failed: refused/)
      } finally {
        await db.destroy()
      }
    }
    await rm(file, { force: true })
  })
})

import { rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { parseDatabaseUrl, redactUrl, runMigrationsCli } from "@portcullis/sql-adapter"

function capture() {
  const lines = { out: [] as string[], err: [] as string[] }
  return { lines, output: { out: (l: string) => lines.out.push(l), err: (l: string) => lines.err.push(l) } }
}

describe("runMigrationsCli", () => {
  const file = join(tmpdir(), `portcullis-cli-${crypto.randomUUID()}.db`)
  afterAll(async () => {
    for (const suffix of ["", "-wal", "-shm"]) await rm(file + suffix, { force: true })
  })

  it("applies the schema, then reports it up to date", async () => {
    const first = capture()
    expect(await runMigrationsCli(["--url", `sqlite:${file}`], {}, first.output)).toBe(0)
    expect(first.lines.out).toEqual([`sqlite:${file}: applied 0001_initial_schema`, `sqlite:${file}: applied 0002_rate_limits`, `sqlite:${file}: applied 0003_session_management`, `sqlite:${file}: applied 0004_token_refresh`, `sqlite:${file}: applied 0005_passwords`, `sqlite:${file}: applied 0006_two_factor`, `sqlite:${file}: applied 0007_audit_trail`])

    const second = capture()
    expect(await runMigrationsCli([`--url=sqlite:${file}`], {}, second.output)).toBe(0)
    expect(second.lines.out).toEqual([`sqlite:${file}: schema is up to date, nothing to apply`])
  })

  it("falls back to DATABASE_URL and applies prefixed tables separately", async () => {
    const run = capture()
    expect(await runMigrationsCli(["--table-prefix", "auth_"], { DATABASE_URL: `sqlite:${file}` }, run.output)).toBe(0)
    expect(run.lines.out).toEqual([`sqlite:${file}: applied 0001_initial_schema`, `sqlite:${file}: applied 0002_rate_limits`, `sqlite:${file}: applied 0003_session_management`, `sqlite:${file}: applied 0004_token_refresh`, `sqlite:${file}: applied 0005_passwords`, `sqlite:${file}: applied 0006_two_factor`, `sqlite:${file}: applied 0007_audit_trail`])
  })

  it("exits 2 with usage when no database is given", async () => {
    const run = capture()
    expect(await runMigrationsCli([], {}, run.output)).toBe(2)
    expect(run.lines.err.join("\n")).toMatch(/pass --url or set DATABASE_URL/)
  })

  it("exits 2 on an unknown option or URL scheme", async () => {
    expect(await runMigrationsCli(["--nope"], {}, capture().output)).toBe(2)
    const run = capture()
    expect(await runMigrationsCli(["--url", "mongodb://u:secret@host/db"], {}, run.output)).toBe(2)
    expect(run.lines.err.join("\n")).not.toContain("secret")
  })

  it("exits 1 without the password in the message when the database is unreachable", async () => {
    const run = capture()
    expect(await runMigrationsCli(["--url", "postgres://postgres:hunter2@127.0.0.1:1/none"], {}, run.output)).toBe(1)
    expect(run.lines.err.join("\n")).toMatch(/^postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:1\/none: /)
    expect(run.lines.err.join("\n")).not.toContain("hunter2")
  })
})

describe("parseDatabaseUrl", () => {
  it("recognises each dialect's URL forms", () => {
    expect(parseDatabaseUrl("postgresql://h/db")).toEqual({ dialect: "postgres", target: "postgresql://h/db" })
    expect(parseDatabaseUrl("mariadb://root@h/db")).toEqual({ dialect: "mysql", target: "mysql://root@h/db" })
    expect(parseDatabaseUrl("sqlite:data/auth.db")).toEqual({ dialect: "sqlite", target: "data/auth.db" })
    expect(parseDatabaseUrl("sqlite:///var/auth.db")).toEqual({ dialect: "sqlite", target: "/var/auth.db" })
    expect(parseDatabaseUrl("file:auth.db")).toEqual({ dialect: "sqlite", target: "auth.db" })
    expect(() => parseDatabaseUrl("sqlite:")).toThrow(/no file path/)
  })

  it("redacts passwords only", () => {
    expect(redactUrl("mysql://root:pw@h:3306/db")).toBe("mysql://root:***@h:3306/db")
    expect(redactUrl("mysql://root@h:3306/db")).toBe("mysql://root@h:3306/db")
  })
})

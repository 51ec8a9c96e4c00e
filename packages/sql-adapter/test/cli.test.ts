import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { spawnSync } from "node:child_process"
import { afterAll, describe, expect, it } from "vitest"
import { parseDatabaseUrl, redactUrl, runMigrationsCli } from "@portcullis/sql-adapter"
import { missingDriverAdvice } from "@portcullis/sql-adapter/cli"

/**
 * Node's own error for `import(name)` in a project that does not have the package, made by
 * a separate Node process in an empty directory (vitest's loader would resolve it from here).
 */
async function importErrorOutsideRepo(name: string): Promise<Error> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-no-driver-"))
  try {
    const script = `import(${JSON.stringify(name)}).then(() => console.log("{}"), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })))`
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { cwd: dir, encoding: "utf8" })
    const { code, message } = JSON.parse(run.stdout) as { code?: string; message?: string }
    if (!message) throw new Error(`${name} resolved from ${dir}`)
    return Object.assign(new Error(message), { code })
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

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
    expect(first.lines.out).toEqual([`sqlite:${file}: applied 0001_initial_schema`, `sqlite:${file}: applied 0002_rate_limits`, `sqlite:${file}: applied 0003_session_management`, `sqlite:${file}: applied 0004_token_refresh`, `sqlite:${file}: applied 0005_passwords`, `sqlite:${file}: applied 0006_two_factor`, `sqlite:${file}: applied 0007_audit_trail`, `sqlite:${file}: applied 0008_passkey_names`])

    const second = capture()
    expect(await runMigrationsCli([`--url=sqlite:${file}`], {}, second.output)).toBe(0)
    expect(second.lines.out).toEqual([`sqlite:${file}: schema is up to date, nothing to apply`])
  })

  it("falls back to DATABASE_URL and applies prefixed tables separately", async () => {
    const run = capture()
    expect(await runMigrationsCli(["--table-prefix", "auth_"], { DATABASE_URL: `sqlite:${file}` }, run.output)).toBe(0)
    expect(run.lines.out).toEqual([`sqlite:${file}: applied 0001_initial_schema`, `sqlite:${file}: applied 0002_rate_limits`, `sqlite:${file}: applied 0003_session_management`, `sqlite:${file}: applied 0004_token_refresh`, `sqlite:${file}: applied 0005_passwords`, `sqlite:${file}: applied 0006_two_factor`, `sqlite:${file}: applied 0007_audit_trail`, `sqlite:${file}: applied 0008_passkey_names`])
  })

  it("creates the folder of a new SQLite file (sqlite:data/auth.db in a new project)", async () => {
    const dir = join(tmpdir(), `portcullis-cli-${crypto.randomUUID()}`)
    try {
      const run = capture()
      expect(await runMigrationsCli(["--url", `sqlite:${join(dir, "data", "auth.db")}`], {}, run.output)).toBe(0)
      expect(run.lines.out[0]).toMatch(/applied 0001_initial_schema$/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
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

describe("migrate with a missing database driver", () => {
  it("says which package to install, also when the migration runner wrapped the import error", async () => {
    const pg = await importErrorOutsideRepo("pg")
    expect(missingDriverAdvice(pg)).toBe("the PostgreSQL driver is not installed. Run `npm install pg` in your project, then run this command again.")
    const wrapped = new Error(`migration (setup) failed: ${pg.message}`, { cause: pg })
    expect(missingDriverAdvice(wrapped)).toContain("`npm install pg`")
    expect(missingDriverAdvice(await importErrorOutsideRepo("mysql2"))).toContain("`npm install mysql2`")
  })

  it("leaves other failures to their own message", async () => {
    expect(missingDriverAdvice(await importErrorOutsideRepo("left-pad-not-a-driver"))).toBeUndefined()
    expect(missingDriverAdvice(new Error("connect ECONNREFUSED 127.0.0.1:5432"))).toBeUndefined()
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
    expect(redactUrl("postgres://h/db")).toBe("postgres://h/db")
  })

  // Apps print this in their own logs: every shape a password is typed in is masked, not only
  // the percent-encoded one (found by the attacker's pass on the CLI, issue 30).
  it.each([
    ["a / in the password", "postgres://app:p/ss@db/app", "postgres://app:***@db/app"],
    ["an @ in the password", "postgres://app:p@ss@db/app", "postgres://app:***@db/app"],
    ["a : in the password", "mysql://app:p:ss@db/app", "mysql://app:***@db/app"],
    ["no scheme", "app:s3cret@db/app", "app:***@db/app"],
    ["a password in the query", "postgres://db/app?user=app&password=s3cret", "postgres://db/app?user=app&password=***"],
    ["an sslpassword in the query", "postgres://app@db/app?sslpassword=s3cret&x=1", "postgres://app@db/app?sslpassword=***&x=1"],
  ])("masks %s", (_, url, masked) => {
    expect(redactUrl(url)).toBe(masked)
    expect(redactUrl(url)).not.toMatch(/s3cret|p\/ss|p@ss|p:ss/)
  })
})

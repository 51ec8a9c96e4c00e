import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { mysqlService, postgresService, serviceAvailable } from "@portcullis/adapter-test"

/**
 * Every `npx @portcullis/cli …` command that README.md and docs/*.md show, run as written
 * against the built bin (issue 30: the documented `npx portcullis` resolved to a package
 * that is not ours). Example URLs point at the test servers; everything else is verbatim.
 */
const root = join(import.meta.dirname, "..", "..", "..")
const bin = join(root, "packages", "cli", "dist", "bin.js")

interface DocCommand {
  where: string
  args: string
}

/** The arguments after `npx @portcullis/cli`, up to the end of the code span, line or comment. */
export function documentedCommands(): DocCommand[] {
  const files = ["README.md", ...readdirSync(join(root, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)]
  const found = new Map<string, DocCommand>()
  for (const file of files) {
    readFileSync(join(root, file), "utf8").split("\n").forEach((line, index) => {
      for (const match of line.matchAll(/npx @portcullis\/cli([^`)#|;\n]*)/g)) {
        const args = match[1]!.split(/\s{2,}/)[0]!.trim()
        if (!found.has(args)) found.set(args, { where: `${file}:${index + 1}`, args })
      }
    })
  }
  return [...found.values()]
}

const postgres = postgresService()
const pgGate = await serviceAvailable(postgres, async () => {
  const client = new pg.Client({ connectionString: postgres.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})
const mysql = mysqlService()
async function mysqlAdmin() {
  const { default: mysql2 } = await import("mysql2/promise")
  return mysql2.createConnection({ uri: mysql.url, connectTimeout: 3_000 })
}
const mysqlGate = await serviceAvailable(mysql, async () => {
  await (await mysqlAdmin()).end()
})

const commands = documentedCommands()

describe("the CLI commands in the docs", () => {
  it("are found, and none uses the unscoped `npx portcullis` (not our package)", () => {
    expect(commands.map((c) => c.args)).toEqual(expect.arrayContaining(["secret", "secret --raw", "secret --write", "migrate"]))
    for (const file of ["README.md", ...readdirSync(join(root, "docs")).map((f) => `docs/${f}`)].filter((f) => f.endsWith(".md"))) {
      expect(readFileSync(join(root, file), "utf8"), file).not.toMatch(/npx portcullis\b/)
    }
  })
})

describe("every documented CLI command runs as written (built bin)", () => {
  let pgUrl: string
  beforeAll(() => {
    if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm run build first`)
  })
  // A throwaway database per run (PostgreSQL and MySQL), so "applied …" is what a new project sees.
  const scratchDatabase = `portcullis_cli_docs_${process.pid}_${Date.now()}`
  beforeAll(async () => {
    if (!pgGate.available) return
    const admin = new pg.Client({ connectionString: postgres.url })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${scratchDatabase}`)
    await admin.end()
    const url = new URL(postgres.url)
    url.pathname = `/${scratchDatabase}`
    pgUrl = url.href
  })
  afterAll(async () => {
    if (!pgGate.available) return
    const admin = new pg.Client({ connectionString: postgres.url })
    await admin.connect()
    await admin.query(`DROP DATABASE IF EXISTS ${scratchDatabase} WITH (FORCE)`)
    await admin.end()
  })
  // The same for MySQL/MariaDB (the shared `test` database is already migrated by other suites).
  let mysqlUrl: string
  beforeAll(async () => {
    if (!mysqlGate.available) return
    const admin = await mysqlAdmin()
    await admin.query(`CREATE DATABASE ${scratchDatabase}`)
    await admin.end()
    const url = new URL(mysql.url)
    url.pathname = `/${scratchDatabase}`
    mysqlUrl = url.href
  })
  afterAll(async () => {
    if (!mysqlGate.available) return
    const admin = await mysqlAdmin()
    await admin.query(`DROP DATABASE IF EXISTS ${scratchDatabase}`)
    await admin.end()
  })

  const dirs: string[] = []
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  /** Runs the documented line through a shell (so `"$DATABASE_URL"` and `$(…)` expand) in a fresh directory. */
  async function run(args: string, env: Record<string, string> = {}) {
    const cwd = await mkdtemp(join(tmpdir(), "portcullis-doc-cli-"))
    dirs.push(cwd)
    const result = spawnSync("sh", ["-c", `"${process.execPath}" "${bin}" ${args}`], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, DATABASE_URL: `sqlite:${join(cwd, "auth.db")}`, ...env },
      timeout: 60_000,
    })
    return { ...result, cwd }
  }

  const APPLIED = /^(\S+): (applied (?:@[a-z0-9-]+\/[a-z0-9-]+ )?\d{4}_\w+|schema is up to date, nothing to apply)$/

  for (const { where, args } of commands) {
    const needsPg = /postgres:\/\//.test(args)
    const needsMysql = /mysql:\/\//.test(args)
    const gate = needsPg ? pgGate : needsMysql ? mysqlGate : { describe }
    gate.describe(`${where}: npx @portcullis/cli ${args}`, () => {
      it("succeeds with the documented output", async () => {
        // Example hosts and credentials become the test servers'; the rest is as written.
        const line = args
          .replace(/postgres:\/\/\S+/, () => pgUrl)
          .replace(/mysql:\/\/\S+/, () => mysqlUrl)
        const result = await run(line)
        const what = `${line}\n${result.stdout}${result.stderr}`
        expect(result.status, what).toBe(0)
        const out = result.stdout
        if (/^secret --raw$/.test(args)) expect(out, what).toMatch(/^[0-9a-f]{64}\n$/)
        else if (/^secret --write\b/.test(args)) {
          expect(out, what).toContain("AUTH_SECRET written to new file .env")
          expect(await readFile(join(result.cwd, ".env"), "utf8")).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"/)
        } else if (/^secret\b/.test(args)) expect(out, what).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"\n/)
        else if (/^migrate\b/.test(args)) {
          const lines = out.trim().split("\n")
          expect(lines.length, what).toBeGreaterThan(0)
          for (const l of lines) expect(l, what).toMatch(APPLIED)
          expect(out, what).toContain("applied 0001_initial_schema")
          // Passwords never reach the output.
          expect(out, what).not.toMatch(/:\/\/[^:/@\s]+:(?!\*\*\*)[^@\s]+@/)
        } else if (args === "") expect(out, what).toContain("Usage: npx @portcullis/cli <command>")
        else throw new Error(`${where}: no expected output known for \`npx @portcullis/cli ${args}\`; add it to this test`)
      })
    })
  }
})

import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { main } from "@portcullis/cli"
import { createPostgresKysely, createSqliteKysely, runMigrationsCli } from "@portcullis/sql-adapter"

function io(cwd: string, env: Record<string, string | undefined> = {}) {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), env, cwd } }
}

// The SQL adapter's own migrations (0001…0008), applied before any extension's.
const ADAPTER_MIGRATIONS = 8

describe("portcullis migrate --with <extension>", () => {
  const dirs: string[] = []
  const project = async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-migrate-with-"))
    dirs.push(dir)
    return dir
  }
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true })
  })

  it("applies the extension's migrations after the adapter's, then reports both up to date", async () => {
    const dir = await project()
    const url = `sqlite:${join(dir, "auth.db")}`
    const first = io(dir)
    expect(await main(["migrate", "--url", url, "--with", "@portcullis/organizations"], first.io)).toBe(0)
    expect(first.out).toHaveLength(ADAPTER_MIGRATIONS + 1)
    expect(first.out.at(-1)).toBe(`${url}: applied @portcullis/organizations 0001_organizations`)

    const second = io(dir)
    expect(await main(["migrate", "--url", url, "--with", "@portcullis/organizations"], second.io)).toBe(0)
    expect(second.out).toEqual([`${url}: schema is up to date, nothing to apply`, `${url}: @portcullis/organizations is up to date, nothing to apply`])

    const db = createSqliteKysely(join(dir, "auth.db"))
    try {
      const tables = (await db.introspection.getTables()).map((t) => t.name)
      expect(tables).toEqual(expect.arrayContaining(["users", "organizations", "organization_members", "organization_invitations", "organization_active", "portcullis_organizations_migrations"]))
    } finally {
      await db.destroy()
    }
  })

  it("applies the admin console's migrations: the ban and impersonation tables", async () => {
    const dir = await project()
    const url = `sqlite:${join(dir, "auth.db")}`
    const run = io(dir)
    expect(await main(["migrate", "--url", url, "--with", "@portcullis/admin"], run.io)).toBe(0)
    expect(run.out.slice(ADAPTER_MIGRATIONS)).toEqual([`${url}: applied @portcullis/admin 0001_admin_bans`, `${url}: applied @portcullis/admin 0002_admin_impersonations`])
    const db = createSqliteKysely(join(dir, "auth.db"))
    try {
      expect((await db.introspection.getTables()).map((t) => t.name)).toEqual(expect.arrayContaining(["admin_bans", "admin_impersonations", "admin_migrations"]))
    } finally {
      await db.destroy()
    }
  })

  it("applies enterprise SSO's migrations: connections, domains, SCIM, single-use records and sessions", async () => {
    const dir = await project()
    const url = `sqlite:${join(dir, "auth.db")}`
    const run = io(dir)
    expect(await main(["migrate", "--url", url, "--with", "@portcullis/organizations", "--with", "@portcullis/sso"], run.io)).toBe(0)
    expect(run.out.slice(ADAPTER_MIGRATIONS)).toEqual([`${url}: applied @portcullis/organizations 0001_organizations`, `${url}: applied @portcullis/sso 0001_sso`])
    const again = io(dir)
    expect(await main(["migrate", "--url", url, "--with", "@portcullis/sso"], again.io)).toBe(0)
    expect(again.out.at(-1)).toBe(`${url}: @portcullis/sso is up to date, nothing to apply`)
    const db = createSqliteKysely(join(dir, "auth.db"))
    try {
      expect((await db.introspection.getTables()).map((t) => t.name)).toEqual(expect.arrayContaining([
        "sso_connections", "sso_domains", "sso_verified_domains", "sso_scim_tokens", "sso_scim_users", "sso_scim_groups", "sso_once", "sso_sessions", "portcullis_sso_migrations",
      ]))
    } finally {
      await db.destroy()
    }
  })

  it("gives the extension the table prefix, and takes --with more than once", async () => {
    const dir = await project()
    const url = `sqlite:${join(dir, "auth.db")}`
    const run = io(dir, { DATABASE_URL: url })
    expect(await main(["migrate", "--table-prefix", "app_", "--with", "@portcullis/organizations", "--with", "@portcullis/organizations"], run.io)).toBe(0)
    expect(run.out.slice(ADAPTER_MIGRATIONS)).toEqual([`${url}: applied @portcullis/organizations 0001_organizations`, `${url}: @portcullis/organizations is up to date, nothing to apply`])
    const db = createSqliteKysely(join(dir, "auth.db"))
    try {
      expect((await db.introspection.getTables()).map((t) => t.name)).toEqual(expect.arrayContaining(["app_organizations", "app_portcullis_organizations_migrations"]))
    } finally {
      await db.destroy()
    }
  })

  it("takes only a package name, refused (exit 2) before any connection", async () => {
    const dir = await project()
    for (const name of ["../../evil", "/tmp/x", "file:///tmp/x.js", "data:text/javascript,1", "@scope/", "UPPER"]) {
      const run = io(dir)
      expect(await main(["migrate", "--url", `sqlite:${join(dir, "never.db")}`, "--with", name], run.io)).toBe(2)
      expect(run.err.join("\n")).toContain("--with takes an npm package name")
    }
    await expect(rm(join(dir, "never.db"))).rejects.toThrow(/ENOENT/)
  })

  it("exits 1 naming what to install when the extension is not there", async () => {
    const dir = await project()
    const url = `sqlite:${join(dir, "auth.db")}`
    const run = io(dir)
    expect(await main(["migrate", "--url", url, "--with", `portcullis-no-such-extension-${randomBytes(3).toString("hex")}`], run.io)).toBe(1)
    expect(run.err.join("\n")).toMatch(/cannot load portcullis-no-such-extension-\w+\/sql: is .* installed in this project\? Run `npm install /)
  })

  it("exits 1 when the package's /sql entry has no migrate export, and imports only <package>/sql", async () => {
    const dir = await project()
    const imported: string[] = []
    const lines: string[] = []
    const output = { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l) }
    const code = await runMigrationsCli(["--url", `sqlite:${join(dir, "auth.db")}`, "--with", "some-extension"], {}, output, {
      importModule: async (specifier) => {
        imported.push(specifier)
        return { notMigrate: () => [] }
      },
    })
    expect(code).toBe(1)
    expect(imported).toEqual(["some-extension/sql"])
    expect(lines.at(-1)).toMatch(/some-extension\/sql has no migrate export/)
  })
})

const service = postgresService()
const gate = await serviceAvailable(service, async () => {
  const db = createPostgresKysely(service.url)
  try {
    await db.selectNoFrom((eb) => eb.val(1).as("one")).execute()
  } finally {
    await db.destroy()
  }
})

gate.describe("portcullis migrate --with on PostgreSQL", () => {
  it("masks the URL's password in every line, the extension's included", async () => {
    const prefix = `pcw${randomBytes(4).toString("hex")}_`
    // The test server trusts local connections, so a password in the URL is accepted and ignored.
    const url = new URL(service.url)
    url.password = "hunter2"
    const run = io(await mkdtemp(join(tmpdir(), "portcullis-migrate-with-")))
    try {
      expect(await main(["migrate", "--url", url.href, "--table-prefix", prefix, "--with", "@portcullis/organizations"], run.io)).toBe(0)
      expect(run.out.at(-1)).toMatch(/^postgres:\/\/postgres:\*\*\*@[^ ]+: applied @portcullis\/organizations 0001_organizations$/)
      expect([...run.out, ...run.err].join("\n")).not.toContain("hunter2")
    } finally {
      const db = createPostgresKysely(service.url)
      const tables = await db.introspection.getTables()
      // CASCADE: the order of the drops does not matter with the foreign keys gone along.
      for (const table of tables.filter((t) => t.name.startsWith(prefix))) {
        await db.schema.dropTable(table.name).ifExists().cascade().execute()
      }
      await db.destroy()
    }
  })
})

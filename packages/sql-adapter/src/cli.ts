/**
 * `npx @portcullis/cli migrate`: applies the SQL schema to the database named by a URL.
 * Kept free of `process` globals (arguments, environment and output are parameters)
 * so the CLI package can wire it up and tests can call it.
 * @module
 */
import { mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import { parseArgs } from "node:util"
import type { Kysely } from "kysely"
import { connectUrl } from "./connect.js"
import { parseDatabaseUrl, redactUrl } from "./url.js"
import { migrateToLatest } from "./migrations.js"
import { prefixedTables, type TableNames } from "./tables.js"

/** The driver package each dialect loads on first use (optional peer dependencies). */
const DRIVERS = ["pg", "mysql2"] as const

/**
 * What to install when a driver is missing: the pool imports `pg` or `mysql2` on first use,
 * and Node's "Cannot find package 'pg' imported from …/postgres-pool.js" does not say that
 * the fix is in the user's project.
 */
export function missingDriverAdvice(error: unknown): string | undefined {
  // The migration runner wraps what failed ("migration (setup) failed: …") with the import error as its cause.
  let driver: (typeof DRIVERS)[number] | undefined
  for (let e = error, depth = 0; e && typeof e === "object" && depth < 5 && !driver; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown }
    if (code === "ERR_MODULE_NOT_FOUND" && typeof message === "string") driver = DRIVERS.find((name) => message.includes(`'${name}'`))
  }
  if (!driver) return undefined
  const database = driver === "pg" ? "PostgreSQL" : "MySQL/MariaDB"
  return `the ${database} driver is not installed. Run \`npm install ${driver}\` in your project, then run this command again.`
}

/** How long opening a connection may take (TCP and handshake), as for requests. */
const CONNECT_TIMEOUT_MS = 5_000

/** How long one migration statement may run from the command line (30 minutes). */
const MIGRATION_TIMEOUT_MS = 30 * 60_000

/** Where the command writes. Defaults to the process's stdout and stderr. */
export interface CliOutput {
  out(line: string): void
  err(line: string): void
}

const USAGE = `Usage: npx @portcullis/cli migrate [--url <database-url>] [--table-prefix <prefix>] [--with <package>]...

Creates or upgrades the Portcullis tables. Already-applied migrations are skipped.

  --url            postgres://user:pass@host:5432/db, mysql://user:pass@host:3306/db,
                   or sqlite:path/to/file.db (default: $DATABASE_URL)
  --table-prefix   prefix for every table name (e.g. auth_ gives auth_users)
  --with           also migrate an extension's tables, e.g. --with @portcullis/organizations
                   (repeatable; runs the migrate export of <package>/sql, after the adapter's)
  -h, --help       show this help`

/**
 * What an extension's `/sql` entry exports for `portcullis migrate --with <package>`: applies
 * its schema on `db` (telling the dialect from the Kysely instance), with `tablePrefix` in
 * front of its table names, recording what ran in a migration table of its own. Returns the
 * names of the migrations this call applied (empty when up to date).
 *
 * @example
 * ```ts
 * // my-extension/src/sql.ts
 * export function migrate(db: Kysely<any>, options: { tablePrefix?: string }): Promise<string[]> {
 *   return migrateMyTables(db, options)
 * }
 * ```
 */
export interface ExtensionSqlEntry {
  migrate(db: Kysely<any>, options: { tablePrefix?: string }): Promise<string[]>
}

/** An npm package name (scoped or not): `--with` imports `<name>/sql`, never a path or URL. */
const PACKAGE_NAME = /^(@[a-z0-9][a-z0-9._-]*\/)?[a-z0-9][a-z0-9._-]*$/

/**
 * Imports `specifier` as the project in `cwd` resolves it (where the user installed the
 * extension), else as this package resolves it (a workspace, or a hoisted install).
 */
async function importFromProject(specifier: string, cwd: string): Promise<unknown> {
  let resolved: string | undefined
  try {
    resolved = createRequire(join(cwd, "package.json")).resolve(specifier)
  } catch {
    // Not installed in the project, or not resolvable by require's rules: try our own.
  }
  return resolved ? import(pathToFileURL(resolved).href) : import(specifier)
}

/** Where extensions' `/sql` entries are loaded from; tests pass their own. */
export interface MigrationsCliOptions {
  /** The project directory extensions are resolved from. Default: the process's. */
  cwd?: string
  /** Imports a module by specifier. Default: from `cwd`'s project, else from this package. */
  importModule?: (specifier: string) => Promise<unknown>
}

/**
 * Runs the migrations for the database in `--url` (or `DATABASE_URL`) and prints what
 * it applied.
 *
 * @param argv Arguments after the command name, e.g. `["--url", "sqlite:auth.db"]`.
 * @param env Environment, for `DATABASE_URL`.
 * @returns The exit code: 0 on success, 1 on a failed migration, 2 on bad usage.
 * @example
 * ```ts
 * const code = await runMigrationsCli(process.argv.slice(3), process.env)
 * process.exitCode = code
 * ```
 */
export async function runMigrationsCli(
  argv: string[],
  env: Record<string, string | undefined>,
  output: CliOutput = { out: (line) => console.log(line), err: (line) => console.error(line) },
  options: MigrationsCliOptions = {},
): Promise<number> {
  let values: { url?: string; "table-prefix"?: string; with?: string[]; help?: boolean }
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: "string" },
        "table-prefix": { type: "string" },
        with: { type: "string", multiple: true },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }))
  } catch (error) {
    output.err(`${(error as Error).message}\n\n${USAGE}`)
    return 2
  }
  if (values.help) {
    output.out(USAGE)
    return 0
  }
  // Checked before any connection: the prefix becomes part of every table, index and
  // constraint name, and a bad one used to fail only after the database (or SQLite file) was
  // opened, as "invalid table name for users", with exit 1.
  const prefixValue = values["table-prefix"]
  // An empty prefix is no prefix (`--table-prefix "$PREFIX"` with PREFIX unset).
  if (prefixValue && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefixValue)) {
    output.err(`--table-prefix takes letters, digits and _ only, not starting with a digit (got ${JSON.stringify(prefixValue)})\n\n${USAGE}`)
    return 2
  }
  const extensions = values.with ?? []
  // Checked before any connection, like the prefix: the name is imported, so only a package
  // name passes (no paths, no URLs).
  const badName = extensions.find((name) => !PACKAGE_NAME.test(name))
  if (badName !== undefined) {
    output.err(`--with takes an npm package name, such as @portcullis/organizations (got ${JSON.stringify(badName)})\n\n${USAGE}`)
    return 2
  }
  const url = values.url ?? env.DATABASE_URL
  if (!url) {
    output.err(`No database: pass --url or set DATABASE_URL.\n\n${USAGE}`)
    return 2
  }

  let connection: ReturnType<typeof connectUrl>
  try {
    // `sqlite:data/auth.db` in a new project: make the folder rather than fail with SQLite's
    // "unable to open database file", which does not say what is missing.
    const { dialect, target } = parseDatabaseUrl(url)
    if (dialect === "sqlite" && target !== ":memory:") mkdirSync(dirname(target), { recursive: true })
    // A migration may rewrite a large table or wait for another instance's migration lock:
    // the 5 s statement limit meant for requests would cut it short. Connection errors are
    // reported below, once, as the command's own failure.
    const quiet = { error: () => {}, warn: (message: string) => output.err(message) }
    // MySQL: the wait for a free connection outlasts the connect timeout, so a host that never
    // answers fails with the driver's own "connect ETIMEDOUT". When both were 5 s, the wait
    // gave up first, the pool was closed, and the still-pending connection's timeout then
    // crashed the process with a stack after the error line.
    const times = { connectTimeoutMs: CONNECT_TIMEOUT_MS, acquireTimeoutMs: CONNECT_TIMEOUT_MS * 2, queryTimeoutMs: MIGRATION_TIMEOUT_MS }
    connection = connectUrl(url, { pool: { ...times, logger: quiet } })
  } catch (error) {
    output.err((error as Error).message)
    return 2
  }
  const prefix = values["table-prefix"] ?? ""
  const tables: Partial<TableNames> | undefined = prefix ? prefixedTables(prefix) : undefined
  try {
    const applied = await migrateToLatest(connection.db, {
      dialect: connection.dialect,
      tables,
      migrationTableName: `${prefix}portcullis_migrations`,
    })
    const target = redactUrl(url)
    if (applied.length === 0) output.out(`${target}: schema is up to date, nothing to apply`)
    for (const name of applied) output.out(`${target}: applied ${name}`)
    for (const name of extensions) {
      const entry = await loadExtension(name, options)
      if (typeof entry === "string") {
        output.err(`${target}: ${entry}`)
        return 1
      }
      const ran = await entry.migrate(connection.db, { tablePrefix: prefix || undefined })
      if (ran.length === 0) output.out(`${target}: ${name} is up to date, nothing to apply`)
      for (const migration of ran) output.out(`${target}: applied ${name} ${migration}`)
    }
    return 0
  } catch (error) {
    output.err(`${redactUrl(url)}: ${missingDriverAdvice(error) ?? (error as Error).message}`)
    return 1
  } finally {
    await connection.db.destroy()
  }
}

/** The `/sql` entry of extension `name`, or why it cannot be used (as a sentence). */
async function loadExtension(name: string, options: MigrationsCliOptions): Promise<ExtensionSqlEntry | string> {
  const specifier = `${name}/sql`
  let module: unknown
  try {
    module = await (options.importModule ?? ((s: string) => importFromProject(s, options.cwd ?? process.cwd())))(specifier)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND" || code === "ERR_PACKAGE_PATH_NOT_EXPORTED") {
      return `cannot load ${specifier}: is ${name} installed in this project? Run \`npm install ${name}\`, then this command again.`
    }
    throw error
  }
  const migrate = (module as { migrate?: unknown } | null)?.migrate
  if (typeof migrate !== "function") return `${specifier} has no migrate export: it is not an extension with SQL tables (see ExtensionSqlEntry).`
  return module as ExtensionSqlEntry
}

/**
 * `npx @portcullis/cli migrate`: applies the SQL schema to the database named by a URL.
 * Kept free of `process` globals (arguments, environment and output are parameters)
 * so the CLI package can wire it up and tests can call it.
 * @module
 */
import { mkdirSync } from "node:fs"
import { dirname } from "node:path"
import { parseArgs } from "node:util"
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

const USAGE = `Usage: npx @portcullis/cli migrate [--url <database-url>] [--table-prefix <prefix>]

Creates or upgrades the Portcullis tables. Already-applied migrations are skipped.

  --url            postgres://user:pass@host:5432/db, mysql://user:pass@host:3306/db,
                   or sqlite:path/to/file.db (default: $DATABASE_URL)
  --table-prefix   prefix for every table name (e.g. auth_ gives auth_users)
  -h, --help       show this help`

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
): Promise<number> {
  let values: { url?: string; "table-prefix"?: string; help?: boolean }
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        url: { type: "string" },
        "table-prefix": { type: "string" },
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
    return 0
  } catch (error) {
    output.err(`${redactUrl(url)}: ${missingDriverAdvice(error) ?? (error as Error).message}`)
    return 1
  } finally {
    await connection.db.destroy()
  }
}

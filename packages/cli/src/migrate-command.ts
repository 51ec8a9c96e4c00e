import type { Io } from "./io.js"
import { scrubbing } from "./redact.js"

/**
 * `migrate`: the SQL adapter's migration runner. Imported on use, so `secret` and `--help`
 * start without loading Kysely. Its output passes through {@link scrubbing}: a database URL
 * in the arguments or `DATABASE_URL` is printed with its password masked, whatever its shape.
 * `--with <package>` extensions are resolved from the project directory (`io.cwd`).
 */
export async function migrateCommand(argv: string[], io: Io): Promise<number> {
  const { runMigrationsCli, redactUrl } = await import("@portcullis/sql-adapter")
  return runMigrationsCli(argv, io.env, scrubbing(io, [...argv, io.env.DATABASE_URL], redactUrl), { cwd: io.cwd })
}

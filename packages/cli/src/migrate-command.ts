import type { Io } from "./io.js"

/**
 * `migrate`: the SQL adapter's migration runner. Imported on use, so `secret` and `--help`
 * start without loading Kysely.
 */
export async function migrateCommand(argv: string[], io: Io): Promise<number> {
  const { runMigrationsCli } = await import("@portcullis/sql-adapter")
  return runMigrationsCli(argv, io.env, io)
}

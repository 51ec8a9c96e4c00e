/**
 * The Portcullis command line, run as `npx @portcullis/cli <command>` (the package's bin is
 * also named `portcullis` once it is installed in a project).
 *
 * - `secret` prints a new random `AUTH_SECRET`: `--raw` only the value, `--write` into the
 *   env file the project's framework reads (`.env.local` for Next.js, `.env` otherwise).
 * - `migrate --url <postgres://…|mysql://…|sqlite:path>` creates or upgrades the SQL
 *   adapter's tables (`DATABASE_URL` is read when `--url` is absent); `--with <package>` also
 *   an extension's (its `/sql` entry's `migrate`).
 * @module
 */
import type { Io } from "./io.js"
import { migrateCommand } from "./migrate-command.js"
import { generateSecret, writeSecret } from "./secret.js"
import { secretCommand } from "./secret-command.js"
import { cliVersion } from "./version.js"

export { generateSecret, writeSecret }
export { chooseEnvFile, FRAMEWORKS, type EnvFileChoice, type Framework } from "./env-file.js"
export type { Io }

const USAGE = `Usage: npx @portcullis/cli <command> [options]

Commands:
  secret     generate a random AUTH_SECRET (--raw: the value only; --write: into .env or .env.local)
  migrate    create or upgrade the SQL adapter's tables (--url <url> or DATABASE_URL, --table-prefix <p>,
             --with <package> for an extension's tables, e.g. --with @portcullis/organizations)
  help       show this help, or a command's: help <command>

Options:
  -h, --help       show help (after a command: that command's)
  -v, --version    print the version

Run \`npx @portcullis/cli <command> --help\` for a command's options.`

const COMMANDS: Record<string, (argv: string[], io: Io) => Promise<number>> = {
  secret: secretCommand,
  migrate: migrateCommand,
}

/**
 * Runs the CLI; returns the exit code (0 done, 1 failed, 2 bad usage). Output goes through
 * `io` so tests can read it; `cwd` defaults to the process's.
 *
 * @example
 * ```ts
 * process.exitCode = await main(process.argv.slice(2), { out: console.log, err: console.error, env: process.env })
 * ```
 */
export async function main(argv: string[], io: Omit<Io, "cwd"> & { cwd?: string }): Promise<number> {
  const full: Io = { ...io, cwd: io.cwd ?? process.cwd() }
  const [command, ...rest] = argv
  switch (command) {
    case undefined:
    case "help":
    case "--help":
    case "-h": {
      const topic = command === "help" ? rest[0] : undefined
      if (!topic) {
        full.out(USAGE)
        return 0
      }
      // `help secret` is `secret --help`: each command owns its usage text.
      const run = Object.hasOwn(COMMANDS, topic) ? COMMANDS[topic] : undefined
      if (!run) {
        full.err(`Unknown command: ${topic}\n\n${USAGE}`)
        return 2
      }
      return run(["--help"], full)
    }
    case "--version":
    case "-v":
    case "version":
      full.out(await cliVersion())
      return 0
  }
  const run = Object.hasOwn(COMMANDS, command) ? COMMANDS[command] : undefined
  if (!run) {
    full.err(`Unknown command: ${command}\n\n${USAGE}`)
    return 2
  }
  return run(rest, full)
}

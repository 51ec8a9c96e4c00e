/**
 * The `portcullis` command line.
 *
 * - `portcullis secret` prints a new random secret for `AUTH_SECRET`.
 *   `--raw` prints only the value; `--write [file]` stores it in `.env.local` (or `file`)
 *   without touching other lines; `--force` replaces an existing `AUTH_SECRET`.
 * - `portcullis migrate --url <postgres://…|mysql://…|sqlite:path>` creates or upgrades
 *   the SQL adapter's tables (`DATABASE_URL` is read when `--url` is absent).
 * @module
 */
import { generateSecret, writeSecret } from "./secret.js"

export { generateSecret, writeSecret }

const usage = `Usage: portcullis <command> [options]

Commands:
  secret [--raw] [--write [file]] [--force]
      Generate a random AUTH_SECRET (32 bytes, hex).
      --raw      print only the secret
      --write    add AUTH_SECRET to .env.local (or the given file), keeping other lines
      --force    with --write, replace an existing AUTH_SECRET (signs every user out)
  migrate [--url <url>] [--tables-prefix <p>]
      Create or upgrade the SQL adapter tables. URL: postgres://…, mysql://… or sqlite:<path>.
      Defaults to DATABASE_URL.
  help
      Show this help.
`

/** Runs the CLI; returns the exit code. Output goes through `out`/`err` so tests can read it. */
export async function main(argv: string[], io: { out(s: string): void; err(s: string): void; env: Record<string, string | undefined> }): Promise<number> {
  const [command, ...rest] = argv
  switch (command) {
    case "secret": {
      const secret = generateSecret()
      if (rest.includes("--raw")) {
        io.out(secret)
        return 0
      }
      const writeAt = rest.indexOf("--write")
      if (writeAt !== -1) {
        const next = rest[writeAt + 1]
        const file = next && !next.startsWith("--") ? next : ".env.local"
        const result = await writeSecret(file, secret, rest.includes("--force"))
        if (result === "kept") {
          io.err(`${file} already has AUTH_SECRET; left it alone. Use --force to replace it (this signs every user out).`)
          return 1
        }
        io.out(`AUTH_SECRET ${result === "replaced" ? "replaced" : "written"} in ${file}`)
        return 0
      }
      io.out(`Add this to your environment (for example .env.local):\n\nAUTH_SECRET="${secret}"\n\nOr run \`portcullis secret --write\` to add it for you.`)
      return 0
    }
    case "migrate": {
      const sql = (await import("@portcullis/sql-adapter")) as unknown as {
        runMigrationsCli?: (argv: string[], env: Record<string, string | undefined>) => Promise<number | void>
      }
      if (typeof sql.runMigrationsCli !== "function") {
        io.err("This version of @portcullis/sql-adapter has no migration runner.")
        return 1
      }
      const code = await sql.runMigrationsCli(rest, io.env)
      return typeof code === "number" ? code : 0
    }
    case undefined:
    case "help":
    case "--help":
    case "-h":
      io.out(usage)
      return 0
    default:
      io.err(`Unknown command: ${command}\n\n${usage}`)
      return 2
  }
}

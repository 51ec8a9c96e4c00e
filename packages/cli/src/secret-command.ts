import { resolve } from "node:path"
import { parseArgs } from "node:util"
import { chooseEnvFile, FRAMEWORKS, type Framework } from "./env-file.js"
import { generateSecret, writeSecret } from "./secret.js"
import { gitIgnoreStatus } from "./git-ignored.js"
import type { Io } from "./io.js"

export const SECRET_USAGE = `Usage: npx @portcullis/cli secret [--raw | --write [--file <path> | --framework <name>] [--force]]

Generates a random AUTH_SECRET (32 bytes from the system's CSPRNG, as 64 hex characters).

  (no option)          print the secret as an AUTH_SECRET="…" line, with where to put it
  --raw                print only the value, e.g. AUTH_SECRET=$(npx @portcullis/cli secret --raw)
  --write              add AUTH_SECRET to the env file your framework reads, keeping every other
                       line: .env.local for Next.js, .env for Express, SvelteKit, SolidStart, Qwik
                       and anything else (found from ./package.json's dependencies). A symbolic
                       link or a read-only file is left alone; a warning says when git would
                       commit the file
  --file <path>        with --write, this file instead
  --framework <name>   with --write, the file of ${FRAMEWORKS.join(", ")}
  --force              with --write, replace an existing AUTH_SECRET (this signs every user out)
  -h, --help           show this help`

/** `secret`: prints or stores a new secret. Every failure exits 2 (usage) or 1 (kept), before any output of a secret. */
export async function secretCommand(argv: string[], io: Io): Promise<number> {
  let values: { raw?: boolean; write?: boolean; file?: string; framework?: string; force?: boolean; help?: boolean }
  let positionals: string[]
  try {
    ;({ values, positionals } = parseArgs({
      args: argv,
      options: {
        raw: { type: "boolean" },
        write: { type: "boolean" },
        file: { type: "string" },
        framework: { type: "string" },
        force: { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: true,
    }))
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${SECRET_USAGE}`)
    return 2
  }
  // Help first, and never with a secret: `secret --help` used to print one.
  if (values.help) {
    io.out(SECRET_USAGE)
    return 0
  }
  const problem = usageProblem(values, positionals)
  if (problem) {
    io.err(`${problem}\n\n${SECRET_USAGE}`)
    return 2
  }

  const secret = generateSecret()
  if (values.raw) {
    io.out(secret)
    return 0
  }
  if (!values.write) {
    io.out(
      `AUTH_SECRET="${secret}"\n\n` +
        "Put this line in the env file your framework reads (Next.js: .env.local; Express, SvelteKit and others: .env),\n" +
        "or run `npx @portcullis/cli secret --write` to add it there for you. `--raw` prints only the value.",
    )
    return 0
  }

  // `--write <file>` (a positional after --write) is the older spelling of `--file <file>`.
  const explicit = values.file ?? positionals[0]
  const choice = explicit
    ? { file: explicit, framework: undefined, reason: "given" }
    : await chooseEnvFile(io.cwd, values.framework as Framework | undefined)
  const path = resolve(io.cwd, choice.file)
  let result: Awaited<ReturnType<typeof writeSecret>>
  try {
    result = await writeSecret(path, secret, values.force)
  } catch (error) {
    io.err(`Could not write ${choice.file}: ${(error as Error).message}`)
    return 1
  }
  if (result === "kept") {
    io.err(
      `${choice.file} already has AUTH_SECRET; left it alone. Use --force to replace it (this signs every user out), ` +
        "or rotate without signing anyone out: add the new secret as AUTH_SECRET_1 beside the old one (docs/configuration.md).",
    )
    return 1
  }
  const verb = result === "replaced" ? "replaced in" : result === "created" ? "written to new file" : "added to"
  io.out(`AUTH_SECRET ${verb} ${choice.file} (${choice.reason}).`)
  // .env is ignored by some project templates and committed by others (Vite's keep only
  // *.local out of git): a secret written where `git add .` takes it is one push from public.
  if ((await gitIgnoreStatus(path)) === "committable") {
    io.err(`Warning: git would commit ${choice.file}, and the secret with it: add ${choice.file} to .gitignore (and \`git rm --cached ${choice.file}\` if it is tracked).`)
  }
  if (choice.framework === "express" || choice.framework === "other") {
    io.out(`Node does not read ${choice.file} by itself: start your server with \`node --env-file=${choice.file} server.js\` (or load it with dotenv).`)
  }
  return 0
}

function usageProblem(values: { raw?: boolean; write?: boolean; file?: string; framework?: string; force?: boolean }, positionals: string[]): string | undefined {
  if (values.raw && values.write) return "--raw prints the secret; --write stores it. Pick one."
  // `!== undefined`, not truthiness: `--file=` (empty) once counted as no --file, and the
  // secret went to the detected file instead of being refused.
  if (!values.write && (values.file !== undefined || values.framework !== undefined || values.force)) return "--file, --framework and --force only go with --write."
  if (values.file !== undefined && values.file.trim() === "") return "--file needs a path."
  if (values.file !== undefined && values.framework !== undefined) return "--file and --framework both choose the file. Pick one."
  // One positional (the older spelling of --file) and only when nothing else names the file.
  const fileless = values.write && values.file === undefined && values.framework === undefined
  if (positionals.length > (fileless ? 1 : 0)) return `Unexpected argument: ${positionals.at(-1)}`
  if (positionals[0]?.trim() === "") return "--file needs a path."
  if (values.framework && !(FRAMEWORKS as readonly string[]).includes(values.framework)) {
    return `Unknown framework: ${values.framework} (one of ${FRAMEWORKS.join(", ")})`
  }
  return undefined
}

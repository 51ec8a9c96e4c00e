import { readFile } from "node:fs/promises"
import { join } from "node:path"

/** Frameworks whose env file `--framework` can name. */
export const FRAMEWORKS = ["next", "express", "sveltekit", "solid-start", "qwik", "other"] as const
export type Framework = (typeof FRAMEWORKS)[number]

/** Where a framework's dev server reads `AUTH_SECRET` from, and how it gets there. */
export interface EnvFileChoice {
  file: string
  framework: Framework
  /** How the choice was made, for the message: `--framework`, `package.json` or the default. */
  reason: string
}

// Next loads .env.local (git-ignored by create-next-app); every other framework here reads
// .env: Vite-based ones (SvelteKit, SolidStart, Qwik) load it, and Node's `--env-file=.env`
// is the usual way for Express. `.env.local` was the old default, which Express never read.
const FILE: Record<Framework, string> = {
  next: ".env.local",
  express: ".env",
  sveltekit: ".env",
  "solid-start": ".env",
  qwik: ".env",
  other: ".env",
}

// The dependency that marks each framework in a project's package.json, most specific first.
const MARKERS: [string, Framework][] = [
  ["next", "next"],
  ["@portcullis/next", "next"],
  ["@sveltejs/kit", "sveltekit"],
  ["@solidjs/start", "solid-start"],
  ["@builder.io/qwik-city", "qwik"],
  ["express", "express"],
]

/**
 * Picks the env file the project's framework reads: `framework` when given, else the
 * dependencies in `<cwd>/package.json`, else `.env`.
 */
export async function chooseEnvFile(cwd: string, framework?: Framework): Promise<EnvFileChoice> {
  if (framework) return { file: FILE[framework], framework, reason: "--framework" }
  const deps = await dependencies(cwd)
  for (const [name, found] of MARKERS) {
    if (deps.has(name)) return { file: FILE[found], framework: found, reason: `package.json depends on ${name}` }
  }
  return { file: FILE.other, framework: "other", reason: "no known framework in package.json" }
}

async function dependencies(cwd: string): Promise<Set<string>> {
  let text: string
  try {
    text = await readFile(join(cwd, "package.json"), "utf8")
  } catch {
    return new Set()
  }
  try {
    const pkg = JSON.parse(text) as Record<string, unknown>
    const names = new Set<string>()
    for (const field of ["dependencies", "devDependencies"]) {
      const deps = pkg[field]
      if (deps && typeof deps === "object") for (const name of Object.keys(deps)) names.add(name)
    }
    return names
  } catch {
    // A package.json that does not parse says nothing about the framework; the default stands.
    return new Set()
  }
}

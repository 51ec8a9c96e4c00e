/**
 * The admin console is built on the public extension API only (issue 32): nothing in `src/`
 * imports core but `@portcullis/core/extension` — a type may come from `@portcullis/core`
 * or `@portcullis/core/adapters` — and no path reaches out of the package into core's `lib/`.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const SRC = fileURLToPath(new URL("../src/", import.meta.url))
const TYPE_ONLY_ALLOWED = new Set(["@portcullis/core", "@portcullis/core/adapters"])

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []))
}

/** Every module specifier of `code`, with whether its import or export is type-only. */
function specifiers(source: string): Array<{ specifier: string; typeOnly: boolean }> {
  // Comments hold examples of how apps import the package; only code counts.
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "")
  const found: Array<{ specifier: string; typeOnly: boolean }> = []
  for (const match of code.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?\bfrom\s+["']([^"']+)["']/gms)) found.push({ specifier: match[3]!, typeOnly: !!match[2] })
  for (const match of code.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) found.push({ specifier: match[1]!, typeOnly: false })
  for (const match of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) found.push({ specifier: match[1]!, typeOnly: false })
  return found
}

/** What an import of `specifier` by `file` breaks, if anything. */
export function violation(file: string, specifier: string, typeOnly: boolean): string | undefined {
  if (specifier.startsWith(".")) {
    const target = resolve(join(file, ".."), specifier)
    return relative(SRC, target).startsWith("..") ? `${specifier} leaves the package` : undefined
  }
  if (!specifier.startsWith("@portcullis/")) return undefined
  if (specifier === "@portcullis/core/extension") return undefined
  if (typeOnly && TYPE_ONLY_ALLOWED.has(specifier)) return undefined
  return `${specifier}${typeOnly ? " (type-only)" : ""} is not the public extension API`
}

describe("the import boundary of the admin console", () => {
  it("imports core only through @portcullis/core/extension (types also from the core and adapters entries)", () => {
    const problems: string[] = []
    for (const file of sources(SRC)) {
      for (const { specifier, typeOnly } of specifiers(readFileSync(file, "utf8"))) {
        const problem = violation(file, specifier, typeOnly)
        if (problem) problems.push(`${relative(SRC, file)}: ${problem}`)
      }
    }
    expect(problems).toEqual([])
  })

  it("would catch a reach into core's lib/, another core entry, or a value import from core", () => {
    const file = join(SRC, "operations.ts")
    expect(violation(file, "@portcullis/core/lib/extensions/api", true)).toBeDefined()
    expect(violation(file, "../../core/src/lib/csrf.js", false)).toBeDefined()
    expect(violation(file, "@portcullis/core/integration", false)).toBeDefined()
    expect(violation(file, "@portcullis/core", false)).toBeDefined()
    expect(violation(file, "@portcullis/core", true)).toBeUndefined()
    expect(violation(file, "./roles.js", false)).toBeUndefined()
  })

  it("finds every kind of import in a source", () => {
    const found = specifiers(`import { a } from "x"\nimport type {\n  B,\n} from "y"\nexport { c } from "z"\nimport "side"\nconst d = await import("lazy")\n/** import { e } from "in-a-comment" */`)
    expect(found).toEqual([
      { specifier: "x", typeOnly: false },
      { specifier: "y", typeOnly: true },
      { specifier: "z", typeOnly: false },
      { specifier: "side", typeOnly: false },
      { specifier: "lazy", typeOnly: false },
    ])
  })
})

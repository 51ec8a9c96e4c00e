/**
 * The import boundary every extension package keeps (organizations, account, admin, sso,
 * oidc-provider): nothing in its `src/` imports core but `@portcullis/core/extension` — a type
 * may come from `@portcullis/core`, `@portcullis/core/adapters` or another extension's main
 * entry; a SQL store migrates through `@portcullis/sql-adapter/migrations`, the one runner
 * safe behind a pooler (its driver-error helpers too), and a Redis store runs its Lua scripts
 * through `@portcullis/redis-adapter/scripts` — and no path reaches out of the package into core's `lib/`. Each package's `test/boundary.test.ts` runs this suite on its sources.
 */
import { readdirSync, readFileSync } from "node:fs"
import { join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

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

/** What an import of `specifier` by `file` (under `src`) breaks, if anything. */
function violation(src: string, file: string, specifier: string, typeOnly: boolean): string | undefined {
  if (specifier.startsWith(".")) {
    const target = resolve(join(file, ".."), specifier)
    return relative(src, target).startsWith("..") ? `${specifier} leaves the package` : undefined
  }
  if (!specifier.startsWith("@portcullis/")) return undefined
  if (specifier === "@portcullis/core/extension") return undefined
  // The shared migration runner (kysely only, no drivers): one lock discipline for every store.
  if (specifier === "@portcullis/sql-adapter/migrations") return undefined
  // The shared Lua script runner (EVALSHA with the NOSCRIPT fallback; ioredis's types only).
  if (specifier === "@portcullis/redis-adapter/scripts") return undefined
  if (typeOnly && TYPE_ONLY_ALLOWED.has(specifier)) return undefined
  // Another extension's public types (SSO names the organizations store it is given); never its code or its internals.
  if (typeOnly && /^@portcullis\/(?!core\b)[a-z-]+$/.test(specifier)) return undefined
  return `${specifier}${typeOnly ? " (type-only)" : ""} is not the public extension API`
}

/**
 * The boundary suite for the extension package whose sources are at `srcUrl`
 * (`new URL("../src/", import.meta.url)`); `name` titles it, `sample` is one of its files.
 */
export function extensionBoundarySuite(name: string, srcUrl: URL, sample: string): void {
  const src = fileURLToPath(srcUrl)
  describe(`the import boundary of ${name}`, () => {
    it("imports core only through @portcullis/core/extension (types also from the core and adapters entries)", () => {
      const problems: string[] = []
      for (const file of sources(src)) {
        for (const { specifier, typeOnly } of specifiers(readFileSync(file, "utf8"))) {
          const problem = violation(src, file, specifier, typeOnly)
          if (problem) problems.push(`${relative(src, file)}: ${problem}`)
        }
      }
      expect(problems).toEqual([])
    })

    it("would catch a reach into core's lib/, another core entry, or a value import from core", () => {
      const file = join(src, sample)
      expect(violation(src, file, "@portcullis/core/lib/extensions/api", true)).toBeDefined()
      expect(violation(src, file, "../../core/src/lib/csrf.js", false)).toBeDefined()
      expect(violation(src, file, "@portcullis/core/integration", false)).toBeDefined()
      expect(violation(src, file, "@portcullis/core", false)).toBeDefined()
      expect(violation(src, file, "@portcullis/core", true)).toBeUndefined()
      expect(violation(src, file, "@portcullis/sql-adapter/migrations", false)).toBeUndefined()
      expect(violation(src, file, "@portcullis/sql-adapter", false)).toBeDefined()
      expect(violation(src, file, "@portcullis/redis-adapter/scripts", false)).toBeUndefined()
      // Only that entry of the Redis adapter: not its main entry, not another subpath or a file in it.
      expect(violation(src, file, "@portcullis/redis-adapter", false)).toBeDefined()
      expect(violation(src, file, "@portcullis/redis-adapter/rate-limit", false)).toBeDefined()
      expect(violation(src, file, "@portcullis/redis-adapter/dist/scripts.js", false)).toBeDefined()
      expect(violation(src, file, "@portcullis/sql-adapter/node", false)).toBeDefined()
      expect(violation(src, file, "./sibling.js", false)).toBeUndefined()
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
}

/**
 * Reads the public surface of an installed package the way its users meet it: the subpaths of
 * its `exports` map, and for each subpath the names (values and types) that TypeScript sees
 * exported from the `.d.ts` the subpath resolves to. Used to compare Auth.js's packages with
 * the Portcullis packages that replace them.
 */
import { existsSync, readdirSync, readFileSync, realpathSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import ts from "typescript"

export const root = resolve(import.meta.dirname, "../../..")
/** Specifiers are resolved as from a file of this workspace package, which depends on both sides. */
const importer = join(root, "packages/surface-test/test/importer.ts")

/** An Auth.js package and the Portcullis package an app switches its imports to. */
export interface Pair {
  theirs: string
  ours: string
}

export const pairs: Pair[] = [
  { theirs: "next-auth", ours: "@portcullis/next" },
  { theirs: "@auth/express", ours: "@portcullis/express" },
  { theirs: "@auth/sveltekit", ours: "@portcullis/sveltekit" },
  { theirs: "@auth/solid-start", ours: "@portcullis/solid-start" },
  { theirs: "@auth/qwik", ours: "@portcullis/qwik" },
  { theirs: "@auth/core", ours: "@portcullis/core" },
]

interface Manifest {
  version: string
  exports?: Record<string, unknown>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

/** The folder of an installed package (through the workspace's symlinks for ours). */
export const packageDir = (name: string): string => realpathSync(join(root, "node_modules", name))
export const manifest = (name: string): Manifest => JSON.parse(readFileSync(join(packageDir(name), "package.json"), "utf8"))

/** The keys of the package's `exports` map (`"."`, `"./react"`, `"./providers/*"`, …). */
export const subpaths = (name: string): string[] => Object.keys(manifest(name).exports ?? {})

/** The import specifier of a subpath: `"."` → `next-auth`, `"./react"` → `next-auth/react`. */
export const specifier = (name: string, subpath: string): string => (subpath === "." ? name : `${name}/${subpath.slice(2)}`)

/**
 * The concrete subpaths a wildcard key stands for in this package, from the files its `types`
 * target matches: `"./providers/*"` → `["./providers/github", …]`.
 */
export function expand(name: string, subpath: string): string[] {
  const target = manifest(name).exports?.[subpath] as { types?: string } | string | undefined
  const pattern = typeof target === "string" ? target : target?.types
  if (!pattern?.includes("*")) return []
  const [before, after] = pattern.split("*") as [string, string]
  const folder = join(packageDir(name), dirname(before + "x"))
  const prefix = before.slice(before.lastIndexOf("/") + 1)
  if (!existsSync(folder)) return []
  return readdirSync(folder)
    .filter((file) => file.startsWith(prefix) && file.endsWith(after) && !file.endsWith(".map"))
    .map((file) => subpath.replace("*", file.slice(prefix.length, file.length - after.length)))
    .sort()
}

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  target: ts.ScriptTarget.ES2023,
  allowArbitraryExtensions: true,
  skipLibCheck: true,
  noEmit: true,
  types: [],
}

/** The `.d.ts` file TypeScript picks for `spec` (bundler resolution, `types` condition), or `undefined`. */
export function typesFile(spec: string): string | undefined {
  return ts.resolveModuleName(spec, importer, options, ts.sys).resolvedModule?.resolvedFileName
}

/** A module's exported names: all of them, and those that exist at run time (not only as types). */
export interface Exported {
  all: string[]
  values: string[]
}

/**
 * The exported names of each specifier, values and types alike (`undefined` when the specifier
 * does not resolve to types). One program serves every specifier, so shared files load once.
 */
export function exportedNames(specs: string[]): Map<string, Exported | undefined> {
  const files = new Map(specs.map((spec) => [spec, typesFile(spec)]))
  const program = ts.createProgram([...new Set([...files.values()].filter((f) => f !== undefined))], options)
  const checker = program.getTypeChecker()
  const result = new Map<string, Exported | undefined>()
  for (const [spec, file] of files) {
    const source = file && program.getSourceFile(file)
    if (!source) {
      result.set(spec, undefined)
      continue
    }
    const symbol = checker.getSymbolAtLocation(source)
    const exported = symbol ? checker.getExportsOfModule(symbol) : []
    const isValue = (s: ts.Symbol) => !!((s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags & ts.SymbolFlags.Value)
    result.set(spec, { all: exported.map((s) => s.name).sort(), values: exported.filter(isValue).map((s) => s.name).sort() })
  }
  return result
}

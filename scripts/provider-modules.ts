/**
 * Writes `dist/providers/<id>.js` and `.d.ts` into a framework package for every provider
 * module of `@portcullis/core` (one per file in core's `src/providers/`, whatever is there when
 * this runs), each re-exporting `@portcullis/core/providers/<id>`, so
 * `@portcullis/<framework>/providers/github` maps one to one onto Auth.js's import paths
 * (`next-auth/providers/github`, `@auth/express/providers/github`, …) with no file per
 * provider in the package's sources. `index` re-exports `@portcullis/core/providers`.
 * The package's `exports` map them with one pattern: `"./providers"` and `"./providers/*"`.
 *
 * Run after `tsc -b` (the root `npm run build` does), with one or more package folders:
 * `node scripts/provider-modules.ts packages/next packages/express …`; each gets
 * `<folder>/dist/providers`, and the package name from `<folder>/package.json`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"

const coreProviders = join(import.meta.dirname, "../packages/core/src/providers")

/** The import specifier a generated module re-exports: core's module of the same id. */
const coreSpecifier = (id: string) => (id === "index" ? "@portcullis/core/providers" : `@portcullis/core/providers/${id}`)

/** The files to write for `packageName`, by name: `{ "github.js": "…", "github.d.ts": "…" }`. */
export function providerModules(packageName: string, sources = coreProviders): Map<string, string> {
  const files = new Map<string, string>()
  for (const file of readdirSync(sources).filter((f) => f.endsWith(".ts") && !f.endsWith(".d.ts")).sort()) {
    const id = file.slice(0, -3)
    const specifier = coreSpecifier(id)
    const hasDefault = /^export default /m.test(readFileSync(join(sources, file), "utf8"))
    const body = `${hasDefault ? `export { default } from "${specifier}"\n` : ""}export * from "${specifier}"\n`
    const header = `// Generated for ${packageName} by scripts/provider-modules.ts: \`${specifier}\` under this package's name.\n`
    files.set(`${id}.js`, header + body)
    files.set(`${id}.d.ts`, header + body)
  }
  return files
}

/** Replaces `outDir` (stale outputs of removed providers go too) with the generated modules. */
export function writeProviderModules(packageName: string, outDir: string, sources = coreProviders): number {
  const files = providerModules(packageName, sources)
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  for (const [name, text] of files) writeFileSync(join(outDir, name), text)
  return files.size / 2
}

if (import.meta.main) {
  const folders = process.argv.slice(2)
  if (folders.length === 0) {
    console.error("usage: node scripts/provider-modules.ts <package folder>...")
    process.exit(2)
  }
  for (const folder of folders) {
    const { name } = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as { name: string }
    const outDir = resolve(folder, "dist/providers")
    console.log(`${name}: ${writeProviderModules(name, outDir)} provider modules in ${outDir}`)
  }
}

/**
 * Issue 18, packaging gates: every publishable package (each `packages/*` whose manifest is
 * not `private`) is checked as it reaches the registry — the `npm pack` tarball, packed once
 * into a temp dir — by the two linters the ecosystem uses:
 *
 * - `publint` (strict, every level down to suggestions): `exports` shape and order, files
 *   the manifest names but the tarball lacks, `types` conditions, and so on.
 * - `@arethetypeswrong/cli` with its default (`strict`) profile, so types are checked for
 *   `node10` (the `types`/`typesVersions` path), `node16` from CJS and ESM, and `bundler`.
 *   One rule is ignored: `cjs-resolves-to-esm`, which only says a `require()` of an ESM-only
 *   package needs Node's require(esm) or a dynamic import — true of every package here by
 *   design (ESM only), and not a types problem. Wildcard subpaths (`./providers/*`) are
 *   checked through two concrete modules.
 *
 * And `sideEffects`: a package may claim it has none only if no module of its tarball runs
 * something when imported, other than declaring things; a module that does (Next's retired
 * `/middleware` throws on import, so the app learns what to write instead) is listed in the
 * manifest's `sideEffects` array, so a bundler keeps it. The CLI runs on import and claims
 * nothing.
 *
 * And what a tarball holds (issue 30): README and the project's LICENSE; no build
 * bookkeeping (`.tsbuildinfo`), no tests, no source map naming a file the tarball lacks
 * (maps point into `src`, which ships for them); every file the manifest points to. And what
 * the manifest says: where the code lives (`repository` with `directory`, `homepage`, `bugs`),
 * no monorepo-only scripts, and ranges, not exact versions, for every dependency, the
 * internal ones included (an exact `@portcullis/core` pins every app to one release).
 *
 * The tarballs hold the built `dist`: `npm test` builds first.
 */
import { spawnSync } from "node:child_process"
import { closeSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, normalize, relative } from "node:path"
import { build } from "esbuild"
import { publint } from "publint"
import { formatMessage } from "publint/utils"
import ts from "typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { root } from "./surface.ts"

interface Manifest {
  name: string
  version: string
  private?: boolean
  license?: string
  main?: string
  types?: string
  bin?: Record<string, string>
  sideEffects?: boolean | string[]
  exports?: Record<string, unknown>
  typesVersions?: Record<string, Record<string, string[]>>
  scripts?: Record<string, string>
  repository?: { type?: string; url?: string; directory?: string }
  homepage?: string
  bugs?: { url?: string }
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

interface Publishable {
  dir: string
  manifest: Manifest
}

const publishable: Publishable[] = readdirSync(join(root, "packages"))
  .map((dir) => ({ dir: join(root, "packages", dir), manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest }))
  .filter(({ manifest }) => !manifest.private)

const temp = mkdtempSync(join(tmpdir(), "portcullis-packaging-"))
/** Package name → its tarball in `temp`. */
const tarballs = new Map<string, string>()

beforeAll(() => {
  const workspaces = publishable.flatMap(({ dir }) => ["--workspace", dir])
  const packed = spawnSync("npm", ["pack", "--json", "--ignore-scripts", "--pack-destination", temp, ...workspaces], { cwd: root, encoding: "utf8", timeout: 120_000 })
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`)
  for (const entry of JSON.parse(packed.stdout) as { name: string; filename: string }[]) {
    tarballs.set(entry.name, join(temp, entry.filename))
    // Unpacked as npm would, to read what a user gets (a tarball's files sit under package/).
    const into = join(temp, "unpacked", entry.name)
    mkdirSync(into, { recursive: true })
    const untar = spawnSync("tar", ["-xzf", join(temp, entry.filename), "-C", into, "--strip-components=1"], { encoding: "utf8" })
    if (untar.status !== 0) throw new Error(`tar failed for ${entry.name}:\n${untar.stderr}`)
  }
}, 120_000)
afterAll(() => rmSync(temp, { recursive: true, force: true }))

function tarballOf(name: string): string {
  const file = tarballs.get(name)
  if (!file) throw new Error(`npm pack produced no tarball for ${name}`)
  return file
}

describe("the publishable packages", () => {
  it("are the workspace's public packages, core and the CLI among them", () => {
    expect(publishable.map((p) => p.manifest.name)).toEqual(expect.arrayContaining(["@portcullis/core", "@portcullis/next", "@portcullis/cli", "@portcullis/sql-adapter", "@portcullis/adapter-test"]))
  })
})

/** A package's files as its tarball holds them, relative to the package root (`dist/index.js`). */
function filesOf(name: string): string[] {
  return readdirSync(join(temp, "unpacked", name), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(join(temp, "unpacked", name), join(entry.parentPath, entry.name)))
    .sort()
}

/** Every path the manifest points to: `main`, `types`, `bin`, `exports` and `typesVersions` targets. */
function manifestTargets(manifest: Manifest): string[] {
  const targets: string[] = []
  const walk = (value: unknown): void => {
    if (typeof value === "string") targets.push(value)
    else if (Array.isArray(value)) value.forEach(walk)
    else if (value && typeof value === "object") Object.values(value).forEach(walk)
  }
  walk([manifest.main, manifest.types, manifest.bin, manifest.exports, manifest.typesVersions])
  return targets.map((target) => normalize(target))
}

/** Whether a target (`dist/providers/*.js` may hold one `*`) names at least one file of `files`. */
function present(target: string, files: string[]): boolean {
  if (!target.includes("*")) return files.includes(target)
  const [before, after] = target.split("*") as [string, string]
  return files.some((file) => file.startsWith(before) && file.endsWith(after) && !file.slice(before.length, file.length - after.length).includes("/"))
}

/** A file that is a test or exists only for the tests: under a test folder, or named `*.test.*` / `*.spec.*`. */
const isTestFile = (file: string): boolean => /(^|\/)(test|tests|__tests__|__mocks__|fixtures)\//.test(file) || /\.(test|spec)\.[cm]?[jt]sx?$/.test(file)

describe("a tarball holds what a user needs and nothing of the monorepo", () => {
  const license = readFileSync(join(root, "LICENSE"), "utf8")

  it.each(publishable.map((p) => p.manifest.name))("%s: README and the project's LICENSE, at the root", (name) => {
    const files = filesOf(name)
    expect(files).toContain("README.md")
    expect(files).toContain("LICENSE")
    expect(readFileSync(join(temp, "unpacked", name, "LICENSE"), "utf8")).toBe(license)
  })

  it.each(publishable.map((p) => p.manifest.name))("%s: no build info (.tsbuildinfo) and no tests", (name) => {
    const files = filesOf(name)
    expect(files.filter((file) => file.endsWith(".tsbuildinfo"))).toEqual([])
    expect(files.filter(isTestFile)).toEqual([])
  })

  it.each(publishable.map((p) => [p.manifest.name, p.manifest] as const))("%s: every file the manifest points to", (name, manifest) => {
    const files = filesOf(name)
    const targets = manifestTargets(manifest)
    expect(targets.length).toBeGreaterThan(0)
    expect(targets.filter((target) => !present(target, files))).toEqual([])
  })

  it.each(publishable.map((p) => p.manifest.name))("%s: source maps name only files the tarball holds", (name) => {
    const files = filesOf(name)
    const maps = files.filter((file) => file.endsWith(".map"))
    const dangling = maps.flatMap((map) => {
      const { sources, sourceRoot = "" } = JSON.parse(readFileSync(join(temp, "unpacked", name, map), "utf8")) as { sources: string[]; sourceRoot?: string }
      return sources.map((source) => normalize(join(dirname(map), sourceRoot, source))).filter((source) => !files.includes(source)).map((source) => `${map} → ${source}`)
    })
    expect(dangling).toEqual([])
  })
})

describe("a manifest tells npm where the code lives and lets apps take patch releases", () => {
  it.each(publishable.map((p) => [p.manifest.name, p] as const))("%s: repository (with its folder), homepage, bugs and the ISC license", (_name, { dir, manifest }) => {
    const folder = relative(root, dir)
    expect(manifest.repository).toEqual({ type: "git", url: "git+https://github.com/portcullis-auth/portcullis.git", directory: folder })
    expect(manifest.homepage).toBe(`https://github.com/portcullis-auth/portcullis/tree/main/${folder}#readme`)
    expect(manifest.bugs).toEqual({ url: "https://github.com/portcullis-auth/portcullis/issues" })
    expect(manifest.license).toBe("ISC")
  })

  it.each(publishable.map((p) => [p.manifest.name, p.manifest] as const))("%s: no script that reaches outside the package", (_name, manifest) => {
    // npm runs lifecycle scripts (prepare, install…) in an app's node_modules, where ../../ is the app.
    expect(Object.entries(manifest.scripts ?? {}).filter(([, command]) => command.includes(".."))).toEqual([])
  })

  it.each(publishable.map((p) => [p.manifest.name, p.manifest] as const))("%s: ranges, not exact versions; ours at ^ their current version", (_name, manifest) => {
    const versions = new Map(publishable.map(({ manifest }) => [manifest.name, manifest.version]))
    const deps = { ...manifest.dependencies, ...manifest.optionalDependencies, ...manifest.peerDependencies }
    expect(Object.entries(deps).filter(([, range]) => /^=?v?\d+\.\d+\.\d+(-[\w.]+)?$/.test(range.trim()))).toEqual([])
    const internal = Object.entries(deps).filter(([dep]) => dep.startsWith("@portcullis/"))
    expect(internal.filter(([dep, range]) => range !== `^${versions.get(dep)}`)).toEqual([])
  })
})

describe("publint finds nothing in a package's tarball (strict, suggestions included)", () => {
  it.each(publishable.map((p) => p.manifest.name))("%s", async (name) => {
    const tarball = readFileSync(tarballOf(name))
    const { messages, pkg } = await publint({ pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) }, strict: true, level: "suggestion" })
    expect(messages.map((message) => `${message.type}: ${formatMessage(message, pkg, { color: false }) ?? message.code}`)).toEqual([])
  })
})

/** Concrete subpaths standing for each wildcard export (`./providers/*`). */
function wildcardExamples(manifest: Manifest): string[] {
  return Object.keys(manifest.exports ?? {})
    .filter((key) => key.includes("*"))
    .flatMap((key) => ["github", "credentials"].map((module) => key.replace("*", module)))
}

/** Runs the attw CLI on a tarball; its report goes through a file (a pipe is cut when attw exits). */
function attw(tarball: string, manifest: Manifest): { status: number | null; report: string } {
  const reportFile = join(temp, `${manifest.name.replace("/", "-")}.attw.txt`)
  const fd = openSync(reportFile, "w")
  const includes = wildcardExamples(manifest)
  const args = [join(root, "node_modules/@arethetypeswrong/cli/dist/index.js"), tarball, "--ignore-rules", "cjs-resolves-to-esm", "--format", "ascii", "--no-color", "--no-emoji", ...(includes.length ? ["--include-entrypoints", ...includes] : [])]
  const run = spawnSync(process.execPath, args, { stdio: ["ignore", fd, fd], timeout: 60_000 })
  closeSync(fd)
  return { status: run.status, report: readFileSync(reportFile, "utf8") }
}

describe("are the types wrong? no: types resolve for node10, node16 (CJS and ESM) and bundler consumers", () => {
  it.each(publishable.map((p) => [p.manifest.name, p.manifest] as const))("%s", (name, manifest) => {
    const { status, report } = attw(tarballOf(name), manifest)
    expect(report).toContain("No problems found")
    expect(status, report).toBe(0)
  })
})

/** Top-level statements that only declare (or re-export) things; anything else runs on import. */
const declarative = new Set([
  ts.SyntaxKind.ImportDeclaration,
  ts.SyntaxKind.ExportDeclaration,
  ts.SyntaxKind.ExportAssignment,
  ts.SyntaxKind.VariableStatement,
  ts.SyntaxKind.FunctionDeclaration,
  ts.SyntaxKind.ClassDeclaration,
  ts.SyntaxKind.EmptyStatement,
])

/** A directive such as `"use client"`: a string on its own, which runs nothing. */
const isDirective = (statement: ts.Statement): boolean => ts.isExpressionStatement(statement) && ts.isStringLiteral(statement.expression)

/** The tarball-relative paths (`./dist/x.js`) of a package's modules with a top-level statement that runs something. */
function modulesWithEffects(dir: string): string[] {
  const found: string[] = []
  for (const file of readdirSync(join(dir, "dist"), { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".js")) continue
    const source = ts.createSourceFile(file, readFileSync(join(dir, "dist", file), "utf8"), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS)
    if (source.statements.some((statement) => !declarative.has(statement.kind) && !isDirective(statement))) found.push(`./dist/${file}`)
  }
  return found.sort()
}

describe("sideEffects: a package claims none only where importing a module runs nothing", () => {
  const claiming = publishable.filter(({ manifest }) => manifest.sideEffects !== undefined && manifest.sideEffects !== true)

  it("every library package makes the claim (with its exceptions listed)", () => {
    expect(publishable.filter(({ manifest }) => !manifest.bin && !claiming.some((c) => c.manifest.name === manifest.name)).map((p) => p.manifest.name)).toEqual([])
  })

  it("the CLI, which runs when imported as a command, does not", () => {
    expect(publishable.filter(({ manifest }) => manifest.bin).map((p) => [p.manifest.name, p.manifest.sideEffects])).toEqual([["@portcullis/cli", undefined]])
  })

  it.each(claiming.map((p) => [p.manifest.name, p] as const))("%s lists every module that runs something on import", (_name, { dir, manifest }) => {
    const listed = Array.isArray(manifest.sideEffects) ? [...manifest.sideEffects].sort() : []
    expect(modulesWithEffects(dir)).toEqual(listed)
  })

  it("so a bundler keeps the import-time error of next's retired /middleware, and still drops an unused client module", async () => {
    const bundled = async (specifier: string) =>
      (await build({ stdin: { contents: `import "${specifier}"`, resolveDir: root }, bundle: true, write: false, format: "esm", platform: "neutral", mainFields: ["module", "main"], external: ["react", "react/*", "next", "next/*"], logLevel: "silent" })).outputFiles[0]!.text
    expect(await bundled("@portcullis/next/middleware")).toContain("export { auth as proxy }")
    expect((await bundled("@portcullis/next/react")).trim()).toBe("")
  })
})

/**
 * The migration of issue #16, done the way a user does it: take an Auth.js app, change its
 * import specifiers (and its Auth.js dependencies to Portcullis packages), install, build,
 * run. The fixtures under `fixtures/` are Auth.js apps; this module turns a copy of one into a
 * Portcullis app outside the workspace (so no workspace `node_modules` can leak in), with
 * Portcullis installed from `npm pack` tarballs as a user would install it from the registry.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { createHash } from "node:crypto"
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, dirname, join, relative } from "node:path"
import type { Browser, BrowserContext, BrowserContextOptions, Page } from "playwright-core"
import { afterEach, expect } from "vitest"
import { completeDemoOidcLogin } from "../support.js"

export const root = join(import.meta.dirname, "..", "..")
export const fixtures = join(import.meta.dirname, "fixtures")

/**
 * The whole migration: each Auth.js package and the Portcullis package that replaces it.
 * A specifier is the package name or a subpath of it (`next-auth/react` → `@portcullis/next/react`).
 */
export const packageMap: Readonly<Record<string, string>> = {
  "next-auth": "@portcullis/next",
  "@auth/core": "@portcullis/core",
  "@auth/express": "@portcullis/express",
  "@auth/sveltekit": "@portcullis/sveltekit",
}

/** Workspace directory of each Portcullis package the migrated apps (and the newest-peers app) install. */
const workspacePackages: Readonly<Record<string, string>> = {
  "@portcullis/core": "packages/core",
  "@portcullis/next": "packages/next",
  "@portcullis/express": "packages/express",
  "@portcullis/sveltekit": "packages/sveltekit",
  // Not Auth.js packages: e2e/peers/newest.test.ts installs them beside the newest drivers.
  "@portcullis/sql-adapter": "packages/sql-adapter",
  "@portcullis/redis-adapter": "packages/redis-adapter",
}

const sourceFile = /\.(ts|tsx|js|mjs|cjs|jsx|svelte)$/
const skippedDirs = new Set(["node_modules", ".next", ".svelte-kit", "build"])

/** The Portcullis specifier for an Auth.js one, or undefined when it is not an Auth.js package. */
export function portcullisSpecifier(specifier: string): string | undefined {
  for (const [from, to] of Object.entries(packageMap)) {
    if (specifier === from || specifier.startsWith(`${from}/`)) return to + specifier.slice(from.length)
  }
  return undefined
}

// A module specifier: after `from`, `import` (static, side-effect or dynamic) or `declare module`.
const specifierPattern = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\bdeclare\s+module\s+)(["'])([^"'\n]+)\2/g

/** Rewrites the Auth.js module specifiers of one source file; nothing else changes. */
export function rewriteSpecifiers(source: string): string {
  return source.replace(specifierPattern, (whole, before: string, quote: string, specifier: string) => {
    const mapped = portcullisSpecifier(specifier)
    return mapped ? `${before}${quote}${mapped}${quote}` : whole
  })
}

type PackageJson = Record<string, unknown> & { dependencies?: Record<string, string>; devDependencies?: Record<string, string> }

/**
 * Replaces the Auth.js dependencies by the Portcullis tarballs. `@portcullis/core` is added
 * beside a framework package because it is that package's dependency and, unpublished, can
 * only come from its tarball (with Auth.js, `@auth/core` comes from the registry).
 */
export function rewritePackageJson(pkg: PackageJson, tarballs: Readonly<Record<string, string>>): PackageJson {
  const out: PackageJson = { ...pkg }
  for (const field of ["dependencies", "devDependencies"] as const) {
    const deps = pkg[field]
    if (!deps) continue
    const next: Record<string, string> = {}
    for (const [name, range] of Object.entries(deps)) {
      const mapped = packageMap[name]
      if (!mapped) {
        next[name] = range
        continue
      }
      for (const needed of mapped === "@portcullis/core" ? [mapped] : ["@portcullis/core", mapped]) {
        const tarball = tarballs[needed]
        if (!tarball) throw new Error(`no tarball for ${needed}`)
        next[needed] = `file:${tarball}`
      }
    }
    out[field] = next
  }
  return out
}

function listFiles(dir: string, base = dir): string[] {
  const files: string[] = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (skippedDirs.has(entry.name)) continue
    const path = join(dir, entry.name)
    if (entry.isDirectory()) files.push(...listFiles(path, base))
    else files.push(relative(base, path))
  }
  return files.sort()
}

/**
 * Packs `@portcullis/core` and the framework packages (built `dist`, as `npm pack` ships
 * them) once per build: the tarballs are kept under the system temp dir, keyed on a hash of
 * what they contain, so the three migration tests (and later runs on an unchanged build)
 * share one `npm pack`.
 */
export async function packPortcullis(): Promise<Record<string, string>> {
  const hash = createHash("sha256")
  for (const dir of Object.values(workspacePackages)) {
    const pkgDir = join(root, dir)
    if (!existsSync(join(pkgDir, "dist"))) throw new Error(`${dir} is not built: npm run build`)
    const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8")) as { files?: string[] }
    hash.update(readFileSync(join(pkgDir, "package.json")))
    for (const part of manifest.files ?? []) {
      const path = join(pkgDir, part)
      if (!existsSync(path)) continue
      const files = statSync(path).isDirectory() ? listFiles(path).map((f) => join(part, f)) : [part]
      for (const file of files) hash.update(file).update(readFileSync(join(pkgDir, file)))
    }
  }
  const cache = join(tmpdir(), "portcullis-migration-packs")
  const target = join(cache, hash.digest("hex").slice(0, 16))
  if (!existsSync(target)) {
    mkdirSync(cache, { recursive: true })
    const staging = mkdtempSync(join(cache, "staging-"))
    const workspaces = Object.values(workspacePackages).flatMap((dir) => ["--workspace", dir])
    await run("npm", ["pack", "--silent", "--pack-destination", staging, ...workspaces], { cwd: root, timeout: 120_000 })
    try {
      renameSync(staging, target)
    } catch (error) {
      // Another test file packed the same build first: use its tarballs.
      rmSync(staging, { recursive: true, force: true })
      if (!existsSync(target)) throw error
    }
    // Tarballs of earlier builds: kept a day (a run in progress may still install them).
    for (const entry of readdirSync(cache)) {
      const path = join(cache, entry)
      if (path !== target && Date.now() - statSync(path).mtimeMs > 86_400_000) rmSync(path, { recursive: true, force: true })
    }
  }
  const tarballs: Record<string, string> = {}
  for (const name of Object.keys(workspacePackages)) {
    const file = `${name.slice(1).replace("/", "-")}-${readVersion(name)}.tgz`
    if (!existsSync(join(target, file))) throw new Error(`npm pack wrote no ${file} in ${target}`)
    tarballs[name] = join(target, file)
  }
  return tarballs
}

function readVersion(name: string): string {
  const pkg = JSON.parse(readFileSync(join(root, workspacePackages[name]!, "package.json"), "utf8")) as { version: string }
  return pkg.version
}

/** A migrated copy of a fixture, in a fresh temp dir. */
export interface MigratedApp {
  /** The fixture (the Auth.js app). */
  original: string
  /** The Portcullis app: the copy with its specifiers and dependencies rewritten. */
  dir: string
  /** Relative paths of the files the migration changed. */
  changed: string[]
  remove(): void
}

/** Copies fixture `name` outside the workspace and migrates it (specifiers and package.json only). */
export function migrateFixture(name: string, tarballs: Readonly<Record<string, string>>): MigratedApp {
  // MIGRATION_BASELINE=authjs runs a test against the unmigrated Auth.js app (from the
  // registry), to check that the fixture and the test's expectations hold for Auth.js itself;
  // the "changed nothing but" test then fails, as nothing was migrated.
  const baseline = process.env.MIGRATION_BASELINE === "authjs"
  const original = join(fixtures, name)
  const dir = mkdtempSync(join(tmpdir(), `portcullis-migration-${name}-`))
  const changed: string[] = []
  for (const file of listFiles(original)) {
    const from = join(original, file)
    const to = join(dir, file)
    mkdirSync(dirname(to), { recursive: true })
    const text = readFileSync(from, "utf8")
    let migrated = text
    if (baseline) migrated = text
    else if (file === "package.json") migrated = `${JSON.stringify(rewritePackageJson(JSON.parse(text) as PackageJson, tarballs), null, 2)}\n`
    else if (sourceFile.test(file)) migrated = rewriteSpecifiers(text)
    if (migrated === text) cpSync(from, to)
    else {
      writeFileSync(to, migrated)
      changed.push(file)
    }
  }
  // MIGRATION_KEEP=1 keeps the migrated app (its path is logged) to look into a failure.
  const remove = () => (process.env.MIGRATION_KEEP === "1" ? undefined : rmSync(dir, { recursive: true, force: true }))
  return { original, dir, changed, remove }
}

const authjsSpecifier = /(["'])(?:next-auth|@auth\/[\w-]+)(?:\/[^"'\n]*)?\1/g
const portcullisSpecifierText = /(["'])@portcullis\/[\w-]+(?:\/[^"'\n]*)?\1/g

/**
 * Asserts the migration changed nothing but what a user changes: in source files, only
 * quoted Auth.js specifiers became Portcullis ones (line for line); in package.json, only the
 * Auth.js dependencies became Portcullis tarballs; every other file is byte-identical.
 * Checked independently of {@link rewriteSpecifiers}: both sides with their package
 * specifiers masked must be equal.
 */
export function expectOnlySpecifiersChanged(app: MigratedApp): void {
  const before = listFiles(app.original)
  expect(listFiles(app.dir), "the migrated app has the same files").toEqual(before)
  for (const file of before) {
    const a = readFileSync(join(app.original, file), "utf8")
    const b = readFileSync(join(app.dir, file), "utf8")
    if (file === "package.json") {
      const [pa, pb] = [JSON.parse(a) as PackageJson, JSON.parse(b) as PackageJson]
      for (const field of ["dependencies", "devDependencies"] as const) {
        const authjs = Object.keys(pa[field] ?? {}).filter((n) => n in packageMap)
        const portcullis = Object.keys(pb[field] ?? {}).filter((n) => n.startsWith("@portcullis/"))
        for (const n of portcullis) expect(pb[field]![n], `${n} comes from a tarball`).toMatch(/^file:.+\.tgz$/)
        expect(portcullis.length > 0, `${field}: Auth.js packages replaced`).toBe(authjs.length > 0)
        for (const n of authjs) delete pa[field]![n]
        for (const n of portcullis) delete pb[field]![n]
      }
      expect(pb, "package.json: nothing but the Auth.js dependencies changed").toEqual(pa)
      continue
    }
    if (a === b) continue
    expect(sourceFile.test(file), `${file}: only source files change`).toBe(true)
    const [la, lb] = [a.split("\n"), b.split("\n")]
    expect(lb.length, `${file}: same lines`).toBe(la.length)
    la.forEach((line, i) => {
      if (line === lb[i]) return
      expect(lb[i]!.replace(portcullisSpecifierText, "<pkg>"), `${file}:${i + 1} changes only a specifier`).toBe(line.replace(authjsSpecifier, "<pkg>"))
    })
  }
  const leftovers = before.filter((f) => sourceFile.test(f) && /(["'])(next-auth|@auth\/)/.test(readFileSync(join(app.dir, f), "utf8")))
  expect(leftovers, "no Auth.js specifier is left").toEqual([])
}

/**
 * {@link expectOnlySpecifiersChanged} run right after the migration (before `npm install`
 * adds a lockfile and a build rewrites tsconfig.json): the failure, kept for a test to throw.
 */
export function migrationProblem(app: MigratedApp): unknown {
  try {
    expectOnlySpecifiersChanged(app)
    return undefined
  } catch (error) {
    return error
  }
}

/** Environment for child processes: this Node first on PATH (npm and the apps' bins run on it). */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}`, NEXT_TELEMETRY_DISABLED: "1", ...extra }
  // vitest's NODE_ENV=test would make Next and Vite build in development mode.
  delete env.NODE_ENV
  for (const key of Object.keys(env)) if (key.startsWith("VITEST") || key.startsWith("npm_")) delete env[key]
  return env
}

/** Runs a command to completion; rejects with its output when it fails or outlasts `timeout`. */
export function run(command: string, args: string[], options: { cwd: string; timeout: number; env?: Record<string, string> }): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: childEnv(options.env), stdio: ["ignore", "pipe", "pipe"], detached: true })
    const output: string[] = []
    child.stdout!.on("data", (c: Buffer) => output.push(c.toString()))
    child.stderr!.on("data", (c: Buffer) => output.push(c.toString()))
    const timer = setTimeout(() => {
      killGroup(child)
      reject(new Error(`${command} ${args.join(" ")} took over ${options.timeout / 1000}s:\n${output.join("").slice(-8000)}`))
    }, options.timeout)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      if (code === 0) resolve(output.join(""))
      else reject(new Error(`${command} ${args.join(" ")} (in ${options.cwd}) exited with ${code}:\n${output.join("").slice(-8000)}`))
    })
  })
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, "SIGTERM")
  } catch {
    child.kill("SIGTERM")
  }
}

/**
 * `npm install` in the migrated app, as a user would (the registry for everything but
 * Portcullis, whose tarballs the package.json names). A failure fails the test, in CI and
 * locally: the migration is what is tested.
 */
export async function npmInstall(dir: string): Promise<void> {
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, timeout: 480_000 })
}

/** A running production server of a migrated app. */
export interface AppServer {
  url: string
  output: string[]
  stop(): Promise<void>
}

/** Starts a server process and resolves once its output matches `ready`. */
export function startServer(command: string, args: string[], options: { cwd: string; env: Record<string, string>; ready: RegExp; url: string }): Promise<AppServer> {
  const child = spawn(command, args, { cwd: options.cwd, env: childEnv(options.env), stdio: ["ignore", "pipe", "pipe"], detached: true })
  const output: string[] = []
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once("exit", () => resolve())
      killGroup(child)
    })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop()
      reject(new Error(`${command} ${args.join(" ")} did not get ready:\n${output.join("")}`))
    }, 60_000)
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString())
      if (options.ready.test(output.join(""))) {
        clearTimeout(timer)
        resolve({ url: options.url, output, stop })
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", onData)
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${command} exited with ${code}:\n${output.join("")}`))
    })
  })
}

/**
 * Clicks an OpenID sign-in button and goes through the local provider's screens, back to
 * `returnTo`. When the app does not send the browser to the issuer, fails at once saying what
 * the page and the server said (instead of a timeout).
 */
export async function signInAtIssuer(page: Page, button: string, issuer: string, returnTo: string, server: AppServer): Promise<void> {
  await page.click(button)
  await page.waitForURL((u) => u.href.startsWith(issuer) || /error/i.test(u.pathname + u.search), { timeout: 15_000 }).catch(() => undefined)
  if (!page.url().startsWith(issuer)) {
    const body = (await page.textContent("body").catch(() => "")) ?? ""
    throw new Error(`not sent to the OpenID provider ${issuer}: at ${page.url()}\npage: ${body.trim().slice(0, 500)}\nserver: ${server.output.join("").slice(-2000)}`)
  }
  await completeDemoOidcLogin(page, issuer, returnTo)
}

/**
 * A fresh browser context whose waits give up after 10 s: a missing element fails its test
 * quickly, with the assertion's message, rather than at vitest's 30 s test timeout.
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options)
  context.setDefaultTimeout(10_000)
  return context
}

/**
 * A throwaway self-signed certificate for 127.0.0.1 (openssl), for an https OpenID provider
 * that a production app trusts through NODE_EXTRA_CA_CERTS=`certFile`.
 */
export async function loopbackCertificate(): Promise<{ key: string; cert: string; certFile: string; remove(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-migration-tls-"))
  const [keyFile, certFile] = [join(dir, "key.pem"), join(dir, "cert.pem")]
  await run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", keyFile, "-out", certFile], { cwd: dir, timeout: 30_000 })
  return { key: readFileSync(keyFile, "utf8"), cert: readFileSync(certFile, "utf8"), certFile, remove: () => rmSync(dir, { recursive: true, force: true }) }
}

/** After a failed test, prints the end of the app server's output (what the server said about it). */
export function printServerOutputOnFailure(server: () => AppServer | undefined): void {
  afterEach((context) => {
    if (context.task.result?.state === "fail") console.log(`--- server output (last 4000 chars) ---\n${server()?.output.join("").slice(-4000) ?? "(no server)"}`)
  })
}

/**
 * Asserts a type checker's output has no TypeScript error but the `known` ones (each a
 * failure owed to work elsewhere, listed where the test says why). Strict when `known` is
 * empty; while it is not, the known errors must still occur, so a fix is noticed and the
 * list emptied rather than left to hide a new error.
 */
export function expectOnlyKnownTypeErrors(output: string, known: RegExp[]): void {
  const errors = (output.match(/^.*error TS\d+:.*$/gm) ?? []).map((line) => line.trim())
  expect(errors.filter((line) => !known.some((k) => k.test(line))), "type errors").toEqual([])
  if (known.length > 0) expect(errors.length, "the known type errors are gone: empty the list of known errors").toBeGreaterThan(0)
  else expect(output).not.toMatch(/Failed to type check/)
}

/** Seconds since `start`, for the timing lines the tests print. */
export function seconds(start: number): string {
  return `${((performance.now() - start) / 1000).toFixed(1)}s`
}

/**
 * Installs the test-only toolchain on first use and makes the repo resolve it.
 *
 * `npm install` at the root installs what the demo and the library need (issue 30: under
 * a minute, no engine warnings on Node 20). Everything only the tests, the benchmarks and
 * mutation testing use — vitest, Stryker, Playwright, Bun, Deno, workerd, edge-runtime,
 * Next, SvelteKit, Qwik, SolidStart, Auth.js for comparison — is the separate npm project
 * `test-deps/`, pinned by its own lockfile. This script:
 *
 * 1. runs `npm ci` in `test-deps/` when its node_modules is missing or was installed from
 *    another lockfile (a stamp holds the lockfile's hash), and says what to do when the
 *    registry cannot be reached;
 * 2. links every package it installed into the repo's node_modules (and each
 *    `test-deps/mirror/<path>`'s into `<path>/node_modules`), so tests, `tsc -b` and the
 *    example builds resolve them exactly as if the root had installed them. A name the
 *    root install already has is left alone. The links are redone on every run, because
 *    a root `npm install` removes them as extraneous.
 *
 * Usage: `node scripts/test-deps.ts` (the root `build` script runs it). Needs Node ≥ 22.
 */
import { spawnSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"

const root = resolve(import.meta.dirname, "..")
const project = join(root, "test-deps")
const stampFile = join(project, "node_modules", ".portcullis-lock-hash")

/** The hash `npm ci` was last run for: the lockfile and every package.json it was made from. */
export function lockHash(dir = project): string {
  const hash = createHash("sha256")
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { workspaces?: string[] }
  for (const file of ["package-lock.json", "package.json", ...(manifest.workspaces ?? []).map((w) => join(w, "package.json"))]) {
    hash.update(file).update("\0").update(readFileSync(join(dir, file))).update("\0")
  }
  return hash.digest("hex")
}

/**
 * Runs `npm ci` in test-deps/ unless it is installed from this lockfile and still whole.
 * A root `npm install` does not only remove our links as extraneous: npm follows them and
 * also deletes the packages nested inside the linked ones (`csso/node_modules/css-tree`…),
 * leaving test-deps/ broken. So the links going missing (a root install ran since) means
 * "reinstall" too; the npm cache makes that quick and offline.
 */
function install(): void {
  const wanted = lockHash()
  const stamped = existsSync(stampFile) && readFileSync(stampFile, "utf8").trim() === wanted
  const linked = isLink(join(root, "node_modules", "vitest"))
  if (stamped && linked) return
  const why = stamped ? "a root npm install removed its links and packages nested inside it" : "first run or lockfile changed"
  console.error(`scripts/test-deps: installing the test-only toolchain into test-deps/ (npm ci; ${why})`)
  const started = performance.now()
  // --prefer-offline: the lockfile pins every version and hash, so a cached tarball is the
  // right one and a second install (a new clone, a changed lockfile) works without the network.
  // Run from `npm run build`/`npm test`, this process inherits the root's npm settings as
  // npm_config_* variables — legacy-peer-deps among them (the root's .npmrc) — which would
  // leave out the peers test-deps/ installs on purpose (@sveltejs/kit 2 for the consumers'
  // type check). test-deps/ has its own settings: the root's are dropped here.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_config_legacy_peer_deps$/i.test(name)))
  const run = spawnSync("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], { cwd: project, stdio: "inherit", env })
  if (run.status !== 0) {
    console.error(
      [
        `scripts/test-deps: npm ci in test-deps/ failed (exit ${run.status ?? run.signal}).`,
        "The test-only toolchain (vitest, Playwright, Bun, Deno, workerd, Next, …) comes from the npm registry:",
        "check the network (or the registry settings in your .npmrc) and run the command again.",
        "The demo (npm start) and the library do not need it.",
      ].join("\n"),
    )
    process.exit(1)
  }
  console.error(`scripts/test-deps: installed in ${((performance.now() - started) / 1000).toFixed(0)} s`)
}

/** The package folders directly in a node_modules: `name` and `@scope/name`, never `.bin` or dot files. */
function packagesIn(modules: string): string[] {
  if (!existsSync(modules)) return []
  const names: string[] = []
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith(".")) continue
    if (entry.startsWith("@")) for (const name of readdirSync(join(modules, entry))) names.push(`${entry}/${name}`)
    else names.push(entry)
  }
  return names
}

const isLink = (path: string) => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/** Removes the links a previous run made in `modules` (those pointing into test-deps/). */
function unlinkOld(modules: string): void {
  for (const name of [...packagesIn(modules), ...(existsSync(join(modules, ".bin")) ? readdirSync(join(modules, ".bin")).map((b) => `.bin/${b}`) : [])]) {
    const path = join(modules, name)
    if (isLink(path) && resolve(dirname(path), readlinkSync(path)).startsWith(project + sep)) rmSync(path)
  }
}

/** Links each package (and bin) of `from` into `to` where `to` has none of that name; returns how many. */
function linkAll(from: string, to: string): number {
  let count = 0
  const place = (source: string, target: string) => {
    if (existsSync(target) || isLink(target)) return
    mkdirSync(dirname(target), { recursive: true })
    symlinkSync(relative(dirname(target), source), target)
    count++
  }
  for (const name of packagesIn(from)) {
    // test-deps' own workspace links (mirror-*) are bookkeeping, not packages.
    if (isLink(join(from, name)) && resolve(from, dirname(name), readlinkSync(join(from, name))).startsWith(join(project, "mirror"))) continue
    place(join(from, name), join(to, name))
  }
  const bin = join(from, ".bin")
  if (existsSync(bin)) for (const entry of readdirSync(bin)) place(join(bin, entry), join(to, ".bin", entry))
  return count
}

/** Links test-deps/node_modules into node_modules and each mirror's into its path's node_modules. */
function link(): void {
  const manifest = JSON.parse(readFileSync(join(project, "package.json"), "utf8")) as { workspaces: string[] }
  const pairs: Array<[string, string]> = [[join(project, "node_modules"), join(root, "node_modules")]]
  for (const workspace of manifest.workspaces) {
    const path = relative("mirror", workspace)
    pairs.push([join(project, workspace, "node_modules"), join(root, path, "node_modules")])
  }
  if (!existsSync(join(root, "node_modules"))) {
    console.error("scripts/test-deps: no node_modules at the root: run npm install first")
    process.exit(1)
  }
  let linked = 0
  for (const [from, to] of pairs) {
    unlinkOld(to)
    linked += linkAll(from, to)
  }
  if (process.env.PORTCULLIS_TEST_DEPS_VERBOSE) console.error(`scripts/test-deps: ${linked} links`)
}

if (import.meta.main) {
  install()
  link()
  // Written once linked: a stamp without the links is not trusted (see install).
  writeFileSync(stampFile, lockHash() + "\n")
}

import { spawnSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { basename, dirname, isAbsolute, join, normalize } from "node:path"
import { describe, expect, it } from "vitest"

/**
 * Issue 30, attacker's pass on what `npm publish` would upload: the file list `npm pack`
 * gives for every publishable package, read from the package folder as npm would pack it.
 * packages/surface-test/test/packaging.test.ts checks README, LICENSE, build info, tests and
 * dangling maps; this looks for what should never leave a developer's machine: env files,
 * keys and databases, scripts that run on install, compiled files whose source is gone (tsc
 * never deletes them, so a renamed module ships twice), and the build machine's paths or
 * secrets inside the files. All of these hold today; the tests keep them so.
 */

const root = join(import.meta.dirname, "..", "..")

interface Manifest {
  name: string
  private?: boolean
  scripts?: Record<string, string>
}

const publishable = readdirSync(join(root, "packages"))
  .map((dir) => ({ dir: join(root, "packages", dir), manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as Manifest }))
  .filter(({ manifest }) => !manifest.private)

/** Package name → the paths `npm pack` would put in its tarball (relative to the package). */
const packed = new Map<string, string[]>()
const dry = spawnSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts", ...publishable.flatMap(({ dir }) => ["--workspace", dir])], {
  cwd: root,
  encoding: "utf8",
  timeout: 120_000,
})
if (dry.status !== 0) throw new Error(`npm pack --dry-run failed:\n${dry.stderr}`)
for (const entry of JSON.parse(dry.stdout) as { name: string; files: { path: string }[] }[]) packed.set(entry.name, entry.files.map((f) => f.path))

const cases = publishable.map(({ dir, manifest }) => [manifest.name, dir, packed.get(manifest.name) ?? []] as const)

describe("the tarballs of the publishable packages", () => {
  it("are all listed by npm pack", () => {
    expect([...packed.keys()].sort()).toEqual(publishable.map((p) => p.manifest.name).sort())
  })

  it.each(cases)("%s: no env file, key, certificate store, database or npm/git config", (_name, _dir, files) => {
    const forbidden = /(^|\/)(\.env(\..*)?|\.npmrc|\.git(ignore|attributes)?|\.DS_Store|dev-secret|id_(rsa|ed25519|ecdsa))$|\.(pem|key|p12|pfx|crt|sqlite|sqlite-journal|db|log|tgz)$/i
    expect(files.filter((file) => forbidden.test(file))).toEqual([])
  })

  it.each(cases)("%s: no script npm runs on install (preinstall, install, postinstall, prepare)", (_name, dir) => {
    // They run in every app that installs the package; the manifest is read from the folder,
    // as the tarball carries it.
    const { scripts = {} } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest
    const onInstall = ["preinstall", "install", "postinstall", "prepublish", "preprepare", "prepare", "postprepare", "dependencies"]
    expect(Object.keys(scripts).filter((name) => onInstall.includes(name))).toEqual([])
  })

  it.each(cases)("%s: every compiled module has its source (none left over from a renamed one)", (_name, dir, files) => {
    const coreProviders = new Set(readdirSync(join(root, "packages", "core", "src", "providers")).map((file) => file.replace(/\.ts$/, "")))
    const orphans = files
      .filter((file) => file.startsWith("dist/") && file.endsWith(".js"))
      .filter((file) => {
        const stem = file.slice("dist/".length, -".js".length)
        if (["ts", "tsx", "js"].some((ext) => existsSync(join(dir, "src", `${stem}.${ext}`)))) return false
        // Framework packages re-export each core provider from dist/providers/<id>.js,
        // generated at build time (scripts/provider-modules.ts), not compiled from src.
        return !(stem.startsWith("providers/") && coreProviders.has(stem.slice("providers/".length)))
      })
    expect(orphans).toEqual([])
  })

  it.each(cases)("%s: source maps point into the package, relative, without embedded sources", (_name, dir, files) => {
    const problems = files
      .filter((file) => file.endsWith(".map"))
      .flatMap((map) => {
        const { sources = [], sourceRoot = "", sourcesContent } = JSON.parse(readFileSync(join(dir, map), "utf8")) as { sources?: string[]; sourceRoot?: string; sourcesContent?: unknown }
        const found: string[] = []
        if (sourcesContent) found.push(`${map}: sourcesContent`)
        if (sourceRoot && (isAbsolute(sourceRoot) || /^[a-z]+:/i.test(sourceRoot))) found.push(`${map}: sourceRoot ${sourceRoot}`)
        for (const source of sources) {
          const resolved = normalize(join(dirname(map), sourceRoot, source))
          if (isAbsolute(source) || /^[a-z]+:/i.test(source) || resolved.startsWith("..")) found.push(`${map}: ${source}`)
        }
        return found
      })
    expect(problems).toEqual([])
  })

  it.each(cases)("%s: no file names the build machine's folders, holds a private key, or a URL with a real password", (_name, dir, files) => {
    const problems: string[] = []
    for (const file of files.filter((f) => /\.(js|ts|mts|cts|map|json|md)$/.test(f))) {
      const text = readFileSync(join(dir, file), "utf8")
      if (text.includes(root)) problems.push(`${file}: ${root}`)
      if (/\/(home|Users)\/[^/\s"']+\//.test(text) && !/\/home\/user\//.test(text)) problems.push(`${file}: a home folder`)
      if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) problems.push(`${file}: a private key`)
      // Credentials in a URL are fine only as an example: user:pass, ***, or a variable.
      for (const [url, password] of text.matchAll(/[a-z]+:\/\/[^:/\s"'`@]+:([^@/\s"'`]+)@/gi)) {
        if (!/^(pass(word)?|secret|s3cret|\*+|\$\{?\w+\}?|<[^>]+>|pw|x)$/i.test(password!)) problems.push(`${file}: ${url}`)
      }
    }
    expect(problems).toEqual([])
  })

  it("this test reads what npm would pack (not a stale list): every listed file exists", () => {
    const missing = cases.flatMap(([, dir, files]) => files.filter((file) => !existsSync(join(dir, file))).map((file) => `${basename(dir)}/${file}`))
    expect(missing).toEqual([])
  })
})

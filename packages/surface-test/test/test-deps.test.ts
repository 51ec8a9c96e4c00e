/**
 * The lean root install (issue 30): `npm install` installs what the demo and the library
 * need; the test-only toolchain is `test-deps/` (scripts/test-deps.ts, docs/testing.md).
 * These checks keep the split from drifting.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import semver from "semver"

const root = join(import.meta.dirname, "..", "..", "..")
const json = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"))
const rootManifest = json("package.json")
const testDeps = json("test-deps/package.json")
const mirrors: string[] = testDeps.workspaces.map((w: string) => w.replace(/^mirror\//, ""))

describe("each mirror lists what its path needs, at the versions that path's package.json names", () => {
  it.each(mirrors.filter((m) => m.startsWith("examples/")))("%s", (path) => {
    const own = json(`${path}/package.json`)
    const wanted = Object.fromEntries(
      Object.entries({ ...own.dependencies, ...own.devDependencies }).filter(([name]) => !name.startsWith("@portcullis/")),
    )
    expect(json(`test-deps/mirror/${path}/package.json`).devDependencies).toEqual(wanted)
  })

  it("no mirrored example is a root workspace (its dependencies would be installed by npm install)", () => {
    for (const path of mirrors.filter((m) => m.startsWith("examples/") || m === "packages/surface-test")) expect(rootManifest.workspaces).not.toContain(path)
  })
})

describe("the root install stays lean", () => {
  it("nothing is a dependency of both the root and test-deps/", () => {
    const both = Object.keys(testDeps.devDependencies).filter((name) => name in (rootManifest.devDependencies ?? {}) || name in (rootManifest.dependencies ?? {}))
    // typescript: the root builds with it; test-deps pins the same range for Stryker's checker.
    expect(both).toEqual(["typescript"])
    expect(testDeps.devDependencies.typescript).toBe(rootManifest.devDependencies.typescript)
  })

  it("the root lockfile holds no package that refuses Node 20 (no EBADENGINE on a Node 20 install) but kysely", () => {
    const refusing = Object.entries(json("package-lock.json").packages as Record<string, { version?: string; engines?: { node?: string } }>)
      .filter(([, entry]) => entry.engines?.node && !semver.satisfies("20.19.0", entry.engines.node))
      .map(([path, entry]) => `${path.replace(/^.*node_modules\//, "")}@${entry.version}`)
    // kysely 0.29 (sql-adapter's query builder, which the demo runs) declares node >=22.
    expect(refusing).toEqual([expect.stringMatching(/^kysely@0\.29\./)])
  })

  it("neither the root nor a workspace declares engines (the Node check is at run time: lib/node-version.ts)", () => {
    const manifests = [rootManifest, ...rootManifest.workspaces.map((w: string) => json(`${w}/package.json`))]
    expect(manifests.filter((m) => m.engines).map((m) => m.name)).toEqual([])
  })
})

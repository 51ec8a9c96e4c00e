/**
 * docs/stability.md states each package's stability (issue 37, spec §1.7 and §9.3): every
 * publishable package under `packages/` has exactly one row there, labelled `stable` or
 * `experimental`, and the integrations the spec calls experimental are labelled so; each
 * package's own README (what npm shows) says the same.
 */
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"

const root = new URL("../../../../", import.meta.url)
const doc = readFileSync(new URL("docs/stability.md", root), "utf8")

/** The rows of the "Packages" table: package name → label. */
function labels(): Map<string, string> {
  const section = doc.split(/^## /m).find((s) => s.startsWith("Packages"))!
  const rows = new Map<string, string>()
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim())
    const name = /^`(@portcullis\/[\w-]+)`$/.exec(cells[1] ?? "")?.[1]
    if (name) rows.set(name, cells[2]!)
  }
  return rows
}

/** The packages that are published (not `private`): name → directory. */
function packages(): Map<string, string> {
  const out = new Map<string, string>()
  for (const dir of readdirSync(new URL("packages/", root))) {
    const manifest = JSON.parse(readFileSync(new URL(`packages/${dir}/package.json`, root), "utf8")) as { name: string; private?: boolean }
    if (!manifest.private) out.set(manifest.name, dir)
  }
  return out
}

const publishable = () => [...packages().keys()].sort()

describe("docs/stability.md", () => {
  it("labels every publishable package stable or experimental, and lists no other", () => {
    const rows = labels()
    expect([...rows.keys()].sort()).toEqual(publishable())
    for (const [name, label] of rows) expect(["stable", "experimental"], name).toContain(label)
  })

  it("labels the integrations other than Next.js experimental, as the spec does", () => {
    const rows = labels()
    expect(rows.get("@portcullis/next")).toBe("stable")
    for (const name of ["@portcullis/express", "@portcullis/sveltekit", "@portcullis/solid-start", "@portcullis/qwik"]) expect(rows.get(name), name).toBe("experimental")
  })

  it("is what each package's README says under Stability", () => {
    const rows = labels()
    for (const [name, dir] of packages()) {
      const readme = readFileSync(new URL(`packages/${dir}/README.md`, root), "utf8")
      const section = readme.split(/^## /m).find((s) => s.startsWith("Stability"))
      expect(section, `${name}: a Stability section`).toBeDefined()
      expect(/\*\*(stable|experimental)\*\*/.exec(section!)?.[1], name).toBe(rows.get(name))
    }
  })
})

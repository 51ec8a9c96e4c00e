/**
 * Edge-safe by construction: every public entry of `@portcullis/core` (each `exports`
 * subpath, each provider module) and the edge-safe adapters bundle for a Cloudflare Worker
 * and for Vercel's edge runtime with no import of a Node built-in — no `node:*`, no bare
 * `crypto`/`fs`/`net`, static or dynamic. A Node-only acceleration must be chosen at run
 * time without an import (`globalThis.process?.getBuiltinModule?.("node:crypto")`) and
 * have a Web fallback; an import here breaks `wrangler deploy` for every Worker that uses
 * the entry, which is what this test stands in for.
 *
 * The bundles come from the built packages (`dist`, through the `exports` maps, as an
 * app's bundler sees them): `npm test` builds first.
 */
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { bundleForEdge, type EdgeTarget } from "../bundle.ts"

const root = fileURLToPath(new URL("../../", import.meta.url))

/** Entries that are Node-only by what they are, with the reason the docs give. */
const nodeOnly: Record<string, string> = {
  "@portcullis/core/providers/nodemailer": "sends mail over SMTP with nodemailer (TCP sockets); on the edge use an HTTP-API email provider",
  "@portcullis/core/providers/email": "Auth.js's alias of the Nodemailer provider",
}

function coreEntries(): string[] {
  const manifest = JSON.parse(readFileSync(`${root}packages/core/package.json`, "utf8")) as { exports: Record<string, unknown> }
  const providers = readdirSync(`${root}packages/core/src/providers`)
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))
    .map((file) => `@portcullis/core/providers/${file.slice(0, -3)}`)
  const subpaths = Object.keys(manifest.exports)
    .filter((key) => key !== "./package.json" && !key.includes("*"))
    .map((key) => (key === "." ? "@portcullis/core" : `@portcullis/core/${key.slice(2)}`))
  return [...new Set([...subpaths, ...providers])]
}

/** Adapters documented as edge-safe (`docs/runtimes.md`). */
const edgeAdapters = ["@portcullis/memory-adapter", "@portcullis/unstorage-adapter", "@portcullis/xata-adapter", "@portcullis/sql-adapter"]

async function nodeImportsOf(specifier: string, target: EdgeTarget): Promise<string[]> {
  const bundle = await bundleForEdge({ contents: `export * from "${specifier}"`, resolveDir: root }, target)
  return bundle.nodeImports.map((i) => `${i.specifier} (imported by ${i.importer.replace(root, "")})`)
}

describe("core's entries bundle for a Worker without a Node built-in", () => {
  const entries = coreEntries()

  it("covers the default entry, /jwt and the providers", () => {
    expect(entries).toEqual(expect.arrayContaining(["@portcullis/core", "@portcullis/core/jwt", "@portcullis/core/providers/credentials", "@portcullis/core/providers/github", "@portcullis/core/providers/resend"]))
  })

  it.each(entries.filter((entry) => !(entry in nodeOnly)))("%s", async (entry) => {
    expect(await nodeImportsOf(entry, "workerd")).toEqual([])
  })

  it.each(Object.keys(nodeOnly))("%s is Node-only and documented so", async (entry) => {
    // If this starts failing, the entry became edge-safe: drop it from the list and the docs.
    expect(await nodeImportsOf(entry, "workerd"), nodeOnly[entry]).not.toEqual([])
  })
})

describe("the entries an edge app uses bundle for Vercel's edge runtime without a Node built-in", () => {
  it.each(["@portcullis/core", "@portcullis/core/jwt", "@portcullis/core/providers/credentials", "@portcullis/core/providers/google", "@portcullis/core/providers/resend", "@portcullis/unstorage-adapter", "@portcullis/sql-adapter"])("%s", async (entry) => {
    expect(await nodeImportsOf(entry, "edge-light")).toEqual([])
  })
})

describe("the edge-safe adapters bundle for a Worker without a Node built-in", () => {
  it.each(edgeAdapters)("%s", async (entry) => {
    expect(await nodeImportsOf(entry, "workerd")).toEqual([])
  })
})

describe("@portcullis/sql-adapter keeps its Node drivers out of edge builds", () => {
  // Its default entry resolves to the edge entry under the Worker/edge conditions, and to
  // everything (edge entry + Node drivers) on Node, Bun and Deno, so Node imports keep working.
  it("/node, the Node drivers, is Node-only", async () => {
    expect(await nodeImportsOf("@portcullis/sql-adapter/node", "workerd")).not.toEqual([])
  })

  it("the edge build gets the adapter and the migrations, not pg, mysql2 or node:sqlite", async () => {
    const bundle = await bundleForEdge({ contents: `export { SqlAdapter, migrateToLatest } from "@portcullis/sql-adapter"`, resolveDir: root }, "workerd")
    expect(bundle.inputs).toEqual(expect.arrayContaining([expect.stringMatching(/packages\/sql-adapter\/dist\/edge\.js$/)]))
    expect(bundle.inputs.filter((input) => /node_modules\/(pg|mysql2|pg-pool)\/|sql-adapter\/dist\/(sqlite|connect|postgres-pool|mysql-pool|cli)\.js/.test(input))).toEqual([])
  })
})

describe("the check itself", () => {
  it("finds a static node: import, a bare built-in and a dynamic import", async () => {
    const bundle = await bundleForEdge(
      { contents: `import { createHash } from "node:crypto"; import { EventEmitter } from "events"; export const f = () => import("node:fs"); export { createHash, EventEmitter }`, resolveDir: root },
      "workerd",
    )
    expect(bundle.nodeImports.map((i) => i.specifier).sort()).toEqual(["events", "node:crypto", "node:fs"])
  })

  it("lets a run-time lookup through process.getBuiltinModule pass", async () => {
    const bundle = await bundleForEdge(
      { contents: `export const crypto = (globalThis as any).process?.getBuiltinModule?.("node:crypto")`, resolveDir: root },
      "workerd",
    )
    expect(bundle.nodeImports).toEqual([])
  })
})

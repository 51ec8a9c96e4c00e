/**
 * Issue 30: every TypeScript block of README.md and docs/*.md type-checks as a module of a
 * new project that depends on the built packages (the README's tour did not: its
 * `checkPassword(email: string)` got `unknown`). One `tsc` run over all blocks; errors are
 * reported at the doc's own line. A deliberate fragment is marked
 * `<!-- not-compiled: reason -->` just above its fence.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { APP_MODULES, docFiles, EXPRESS_AUTH_MODULE, extractBlocks, moduleSource, PLACEHOLDERS, type DocBlock } from "./doc-blocks.ts"
import { root } from "./surface.ts"

const all = docFiles(root).map((doc) => extractBlocks(root, doc))
const blocks = all.flatMap((r) => r.blocks)
const skipped = all.flatMap((r) => r.skipped)

/** `docs/next.md` line 12 → `docs_next_md_12.ts`. */
const fileOf = (b: DocBlock) => `${b.doc.replace(/[^\w]/g, "_")}_${b.line}.ts`

describe("TypeScript in the docs", () => {
  const dir = mkdtempSync(join(tmpdir(), "portcullis-doc-blocks-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("finds the blocks, and every skipped one says why", () => {
    expect(blocks.length).toBeGreaterThan(50)
    for (const s of skipped) expect(s.reason.length, `${s.doc}:${s.line}`).toBeGreaterThan(10)
    // Fragments are the exception, not the rule.
    expect(skipped.length).toBeLessThan((blocks.length + skipped.length) / 2)
  })

  it("compiles every block (one tsc run; errors at the doc's line)", () => {
    // What an app has: its own node_modules with our built packages and their peers.
    symlinkSync(join(root, "node_modules"), join(dir, "node_modules"))
    writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }))
    for (const b of blocks) writeFileSync(join(dir, fileOf(b)), moduleSource(b))
    writeFileSync(join(dir, "placeholders.d.ts"), PLACEHOLDERS)
    writeFileSync(join(dir, "app-modules.d.ts"), APP_MODULES)
    writeFileSync(join(dir, "auth.d.ts"), EXPRESS_AUTH_MODULE)
    const tsconfig = {
      compilerOptions: {
        target: "ES2023",
        lib: ["ES2023", "DOM", "DOM.Iterable"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        jsx: "react-jsx",
        // Each block is its own module: names may repeat across blocks.
        isolatedModules: true,
      },
      files: ["placeholders.d.ts", "app-modules.d.ts", "auth.d.ts", ...blocks.map(fileOf)],
    }
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify(tsconfig))
    const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir, "--pretty", "false"], { encoding: "utf8", timeout: 240_000 })
    const byFile = new Map(blocks.map((b) => [fileOf(b), b]))
    // `docs_next_md_12.ts(3,5): error TS…` → `docs/next.md:14:5 TS…`
    const errors = `${tsc.stdout}${tsc.stderr}`
      .split("\n")
      .filter((l) => /error TS\d+/.test(l))
      .map((l) => {
        const m = /([\w]+\.ts)\((\d+),(\d+)\): (.*)$/.exec(l)
        const block = m && byFile.get(m[1]!)
        return block ? `${block.doc}:${block.line + Number(m[2]) - 1}:${m[3]} ${m[4]}` : l
      })
    expect(errors).toEqual([])
  }, 300_000)
})

/**
 * Issue 30: each publishable package's README — what npm shows — says how to install it, shows
 * a minimal example, and links to the guides; and the example compiles. Every `ts` block of
 * every package README is type-checked (strict, `moduleResolution: nodenext`, as an ESM app)
 * against the built packages through the workspace's node_modules, so an example cannot drift
 * from the API it shows. `npm test` builds first.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { root } from "./surface.ts"

interface Readme {
  name: string
  dir: string
  text: string
}

const readmes: Readme[] = readdirSync(join(root, "packages"))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as { name: string; private?: boolean } }))
  .filter(({ manifest }) => !manifest.private)
  .map(({ dir, manifest }) => ({ name: manifest.name, dir, text: readFileSync(join(root, "packages", dir, "README.md"), "utf8") }))

/** The body of a `## <title>` section, or undefined. */
function section(text: string, title: string): string | undefined {
  return text.split(/^## /m).find((part) => part.startsWith(`${title}\n`))
}

/** The fenced blocks of one language (```ts … ```). */
function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((match) => match[1] === lang).map((match) => match[2]!)
}

describe("a package README", () => {
  it.each(readmes.map((r) => [r.name, r] as const))("%s: Install (an npm install naming it), Example, Documentation with links", (name, { text }) => {
    const install = section(text, "Install")
    expect(install, "an Install section").toBeDefined()
    expect(blocks(install!, "sh").join("\n")).toMatch(new RegExp(`^npm install (--save-dev )?${name}( |$)`, "m"))
    const example = section(text, "Example")
    expect(example, "an Example section").toBeDefined()
    expect(blocks(example!, "ts").length + blocks(example!, "sh").length).toBeGreaterThan(0)
    expect(section(text, "Documentation")).toMatch(/\]\(https:\/\/github\.com\/portcullis-auth\/portcullis\/blob\/main\/docs\/[\w-]+\.md\)/)
  })
})

const temp = mkdtempSync(join(tmpdir(), "portcullis-readmes-"))
afterAll(() => rmSync(temp, { recursive: true, force: true }))

describe("the TypeScript examples of the package READMEs", () => {
  it("compile against the built packages (strict, nodenext, ESM)", () => {
    symlinkSync(join(root, "node_modules"), join(temp, "node_modules"))
    writeFileSync(join(temp, "package.json"), JSON.stringify({ type: "module", private: true }))
    const files = readmes.flatMap(({ dir, text }) => blocks(text, "ts").map((code, i) => ({ file: `${dir}-${i}.ts`, code })))
    for (const { file, code } of files) writeFileSync(join(temp, file), code)
    const compilerOptions = { module: "nodenext", moduleResolution: "nodenext", target: "ES2023", lib: ["ES2023", "DOM"], strict: true, noEmit: true, skipLibCheck: true, types: ["node"] }
    writeFileSync(join(temp, "tsconfig.json"), JSON.stringify({ compilerOptions, files: files.map((f) => f.file) }))
    const tsc = spawnSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", temp, "--pretty", "false"], { encoding: "utf8" })
    expect(tsc.stdout + tsc.stderr).toBe("")
    expect(tsc.status).toBe(0)
    // Every package but the CLI (a command, shown in sh) has a TypeScript example.
    expect(files.length).toBeGreaterThanOrEqual(readmes.length - 1)
  }, 180_000)
})

import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { main } from "@portcullis/cli"

/**
 * Issue 30, attacker's pass on `secret --write`: the file it writes for Express, SvelteKit,
 * SolidStart and Qwik is `.env`, which some templates keep out of git and others commit
 * (Vite's ignore only `*.local`). A secret written there is one `git add .` from the
 * repository, so the command says so when git would commit the file.
 */

const git = (cwd: string, ...args: string[]) => spawnSync("git", args, { cwd, encoding: "utf8" })
const hasGit = git(tmpdir(), "--version").status === 0

async function repository(gitignore?: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-git-"))
  git(dir, "init", "-q")
  if (gitignore !== undefined) await writeFile(join(dir, ".gitignore"), gitignore)
  return dir
}

function io(cwd: string) {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), env: {}, cwd } }
}

describe.skipIf(!hasGit)("secret --write warns when git would commit the secret", () => {
  it("a .env that no .gitignore names: written, exit 0, and a warning on stderr", async () => {
    const dir = await repository("node_modules\n*.local\n")
    const a = io(dir)
    expect(await main(["secret", "--write"], a.io)).toBe(0)
    expect(await readFile(join(dir, ".env"), "utf8")).toMatch(/AUTH_SECRET=/)
    expect(a.err).toEqual(["Warning: git would commit .env, and the secret with it: add .env to .gitignore (and `git rm --cached .env` if it is tracked)."])
  })

  it("a .env that is already tracked, even though .gitignore names it now", async () => {
    const dir = await repository(".env\n")
    await writeFile(join(dir, ".env"), "A=1\n")
    git(dir, "add", "-f", ".env")
    const a = io(dir)
    expect(await main(["secret", "--write"], a.io)).toBe(0)
    expect(a.err.join("\n")).toContain("git would commit .env")
  })

  it("no warning when .gitignore covers the file, nor outside a repository", async () => {
    const ignored = await repository(".env\n.env.local\n")
    const a = io(ignored)
    expect(await main(["secret", "--write"], a.io)).toBe(0)
    expect(a.err).toEqual([])
    const plain = await mkdtemp(join(tmpdir(), "portcullis-cli-nogit-"))
    const b = io(plain)
    expect(await main(["secret", "--write"], b.io)).toBe(0)
    expect(b.err).toEqual([])
  })

  it("runs no program the repository's config names (core.fsmonitor)", async () => {
    const dir = await repository()
    const marker = join(dir, "fsmonitor-ran")
    git(dir, "config", "core.fsmonitor", `touch ${marker}`)
    expect(await main(["secret", "--write"], io(dir).io)).toBe(0)
    expect(existsSync(marker)).toBe(false)
  })
})

describe.skipIf(!hasGit)("this repository ignores the env files the CLI writes", () => {
  // `npm run secret -- --write` at the root (its package.json names express) or in an
  // example writes .env; the root .gitignore had only .env.local.
  it("at the root and in the examples", () => {
    const root = join(import.meta.dirname, "..", "..", "..", "..")
    for (const file of [".env", ".env.local", "examples/express/.env", "examples/next/.env.local"]) {
      expect(git(root, "check-ignore", "-q", "--no-index", "--", file).status, file).toBe(0)
    }
  })
})

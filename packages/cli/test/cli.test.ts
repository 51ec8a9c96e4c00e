import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { main } from "@portcullis/cli"

function io(cwd?: string) {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), env: {}, cwd } }
}

async function project(pkg?: object): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-"))
  if (pkg) await writeFile(join(dir, "package.json"), JSON.stringify(pkg))
  return dir
}

const HEX = /[0-9a-f]{64}/

describe("portcullis secret (spec §1.10)", () => {
  it("--raw prints only a fresh 32-byte hex secret", async () => {
    const a = io()
    const b = io()
    expect(await main(["secret", "--raw"], a.io)).toBe(0)
    await main(["secret", "--raw"], b.io)
    expect(a.out[0]).toMatch(/^[0-9a-f]{64}$/)
    expect(a.out[0]).not.toBe(b.out[0])
  })

  it("without flags prints an AUTH_SECRET line and says which file each framework reads", async () => {
    const a = io()
    await main(["secret"], a.io)
    expect(a.out[0]).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"\n/)
    expect(a.out[0]).toContain("Next.js: .env.local")
    expect(a.out[0]).toContain("npx @portcullis/cli secret --write")
  })

  it("--write picks .env.local for a Next.js project and .env for Express, and says which", async () => {
    const next = await project({ dependencies: { next: "^15.0.0", "@portcullis/next": "^0.1.0" } })
    const a = io(next)
    expect(await main(["secret", "--write"], a.io)).toBe(0)
    expect(await readFile(join(next, ".env.local"), "utf8")).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"/)
    await expect(readFile(join(next, ".env"), "utf8")).rejects.toThrow()
    expect(a.out[0]).toBe("AUTH_SECRET written to new file .env.local (package.json depends on next).")

    const express = await project({ dependencies: { express: "^5.0.0" } })
    const b = io(express)
    expect(await main(["secret", "--write"], b.io)).toBe(0)
    expect(await readFile(join(express, ".env"), "utf8")).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"/)
    expect(b.out.join("\n")).toContain(".env (package.json depends on express)")
    // Express reads no env file by itself: the message says how to load it.
    expect(b.out.join("\n")).toContain("--env-file=.env")
  })

  it("--write uses .env with no package.json, --framework overrides the detection, --file names the file", async () => {
    const bare = await project()
    expect(await main(["secret", "--write"], io(bare).io)).toBe(0)
    expect(await readFile(join(bare, ".env"), "utf8")).toMatch(HEX)

    const kit = await project({ devDependencies: { "@sveltejs/kit": "^2.0.0" } })
    expect(await main(["secret", "--write", "--framework", "next"], io(kit).io)).toBe(0)
    expect(await readFile(join(kit, ".env.local"), "utf8")).toMatch(HEX)

    const any = await project({ dependencies: { next: "15.0.0" } })
    const missingDir = io(any)
    expect(await main(["secret", "--write", "--file", "config/auth.env"], missingDir.io)).toBe(1)
    expect(missingDir.err[0]).toMatch(/^Could not write config\/auth\.env: ENOENT/)
    await mkdir(join(any, "config"))
    expect(await main(["secret", "--write", "--file", "config/auth.env"], io(any).io)).toBe(0)
    expect(await readFile(join(any, "config", "auth.env"), "utf8")).toMatch(HEX)
  })

  it("--help and help secret print the options and never a secret", async () => {
    for (const argv of [["secret", "--help"], ["secret", "-h"], ["help", "secret"]]) {
      const a = io()
      expect(await main(argv, a.io)).toBe(0)
      expect(a.out.join("\n")).toContain("Usage: npx @portcullis/cli secret")
      expect(a.out.join("\n")).toContain("--raw")
      expect(a.out.join("\n")).not.toMatch(HEX)
    }
  })

  it("rejects contradictory or unknown options with exit 2 and prints no secret", async () => {
    for (const argv of [["secret", "--raw", "--write"], ["secret", "--force"], ["secret", "--write", "--framework", "rails"], ["secret", "--nope"], ["secret", "stray"]]) {
      const a = io(await project())
      expect(await main(argv, a.io), argv.join(" ")).toBe(2)
      expect(a.err.join("\n"), argv.join(" ")).toContain("Usage: npx @portcullis/cli secret")
      expect([...a.out, ...a.err].join("\n")).not.toMatch(HEX)
    }
  })

  it("--write adds AUTH_SECRET to .env.local and keeps the other lines", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-"))
    const file = join(dir, ".env.local")
    await writeFile(file, "DATABASE_URL=postgres://x\n# comment\nOTHER=1")
    expect(await main(["secret", "--write", file], io().io)).toBe(0)
    const text = await readFile(file, "utf8")
    expect(text).toMatch(/^DATABASE_URL=postgres:\/\/x\n# comment\nOTHER=1\nAUTH_SECRET="[0-9a-f]{64}"/)
  })

  it("refuses to replace an existing AUTH_SECRET without --force", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-"))
    const file = join(dir, ".env.local")
    await writeFile(file, 'A=1\nAUTH_SECRET="old"\nB=2\n')
    const first = io()
    expect(await main(["secret", "--write", file], first.io)).toBe(1)
    expect(first.err[0]).toContain("--force")
    expect(await readFile(file, "utf8")).toContain('AUTH_SECRET="old"')
    expect(await main(["secret", "--write", file, "--force"], io().io)).toBe(0)
    const text = await readFile(file, "utf8")
    expect(text).not.toContain('"old"')
    expect(text).toMatch(/^A=1\nAUTH_SECRET="[0-9a-f]{64}".*\nB=2\n$/)
  })

  it("creates the file when missing", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-"))
    const file = join(dir, ".env.local")
    expect(await main(["secret", "--write", file], io().io)).toBe(0)
    expect(await readFile(file, "utf8")).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"/)
  })

  it("unknown commands exit 2 with usage", async () => {
    const a = io()
    expect(await main(["frobnicate"], a.io)).toBe(2)
    expect(a.err[0]).toContain("Usage: npx @portcullis/cli <command>")
  })
})

describe("portcullis help and version", () => {
  it("--version prints the package.json version", async () => {
    const { version } = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
    for (const flag of ["--version", "-v"]) {
      const a = io()
      expect(await main([flag], a.io)).toBe(0)
      expect(a.out).toEqual([version])
    }
  })

  it("the top-level help names the command as npx runs it and the real migrate flags", async () => {
    const a = io()
    expect(await main(["--help"], a.io)).toBe(0)
    expect(a.out[0]).toContain("Usage: npx @portcullis/cli <command>")
    expect(a.out[0]).toContain("--table-prefix")
    expect(a.out[0]).not.toContain("--tables-prefix")
  })

  it("migrate --help prints the migration options", async () => {
    const a = io()
    expect(await main(["migrate", "--help"], a.io)).toBe(0)
    expect(a.out.join("\n")).toContain("Usage: npx @portcullis/cli migrate")
    expect(a.out.join("\n")).toContain("--table-prefix")
  })
})

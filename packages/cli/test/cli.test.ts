import { mkdtemp, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { main } from "@portcullis/cli"

function io() {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), env: {} } }
}

describe("portcullis secret (spec §1.10)", () => {
  it("--raw prints only a fresh 32-byte hex secret", async () => {
    const a = io()
    const b = io()
    expect(await main(["secret", "--raw"], a.io)).toBe(0)
    await main(["secret", "--raw"], b.io)
    expect(a.out[0]).toMatch(/^[0-9a-f]{64}$/)
    expect(a.out[0]).not.toBe(b.out[0])
  })

  it("without flags explains where to put it", async () => {
    const a = io()
    await main(["secret"], a.io)
    expect(a.out[0]).toMatch(/AUTH_SECRET="[0-9a-f]{64}"/)
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
    expect(a.err[0]).toContain("Usage: portcullis")
  })
})

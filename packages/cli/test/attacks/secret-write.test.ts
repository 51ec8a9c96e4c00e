import { spawn, spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { chmod, lstat, mkdir, mkdtemp, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { main } from "@portcullis/cli"

/**
 * Issue 30, attacker's pass on `secret --write`: what the command does to files it did not
 * expect — links, odd line endings, a secret already there, two runs at once, a file it may
 * not write. Each case is the behaviour we want; the ones that are deliberate say why.
 */

function io(cwd: string) {
  const out: string[] = []
  const err: string[] = []
  return { out, err, io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), env: {}, cwd } }
}

async function project(): Promise<string> {
  return mkdtemp(join(tmpdir(), "portcullis-cli-attack-"))
}

const SECRET_LINE = /^AUTH_SECRET="([0-9a-f]{64})" # Added by `portcullis secret`\. Keep it secret\.$/
const secretLines = (text: string) => text.split(/\r?\n/).filter((line) => /^\s*(export\s+)?AUTH_SECRET\s*=/.test(line))

describe("a symlinked env file is not written through", () => {
  it("refuses .env that links elsewhere, leaves the link's target alone, and names the target", async () => {
    const dir = await project()
    const outside = join(await project(), "shared.env")
    await writeFile(outside, "SHARED=1\n")
    await symlink(outside, join(dir, ".env"))
    const a = io(dir)
    expect(await main(["secret", "--write"], a.io)).toBe(1)
    expect(await readFile(outside, "utf8")).toBe("SHARED=1\n")
    expect((await lstat(join(dir, ".env"))).isSymbolicLink()).toBe(true)
    expect(a.err.join("\n")).toContain("symbolic link")
    expect(a.err.join("\n")).toContain(outside)
    expect([...a.out, ...a.err].join("\n")).not.toMatch(/[0-9a-f]{64}/)
  })

  it("refuses a dangling link too, rather than creating the file it points to", async () => {
    const dir = await project()
    const target = join(await project(), "created-elsewhere.env")
    await symlink(target, join(dir, ".env.local"))
    expect(await main(["secret", "--write", "--framework", "next"], io(dir).io)).toBe(1)
    await expect(stat(target)).rejects.toThrow(/ENOENT/)
    expect(await readlink(join(dir, ".env.local"))).toBe(target)
  })

  it("writes the target when it is named with --file (the user chose it)", async () => {
    const dir = await project()
    const outside = join(await project(), "shared.env")
    await writeFile(outside, "SHARED=1\n")
    expect(await main(["secret", "--write", "--file", outside], io(dir).io)).toBe(0)
    expect(await readFile(outside, "utf8")).toMatch(/^SHARED=1\nAUTH_SECRET="[0-9a-f]{64}"/)
  })
})

describe("--file outside the project", () => {
  // Deliberate: --file is the user's own argument on their own machine, like `cp`'s target.
  // The CLI reads no file names from the project (package.json only picks .env or .env.local),
  // so no project can steer the write elsewhere.
  it("writes a relative path that leaves the project, and an absolute path, as given", async () => {
    const parent = await project()
    const dir = join(parent, "app")
    await mkdir(dir)
    expect(await main(["secret", "--write", "--file", "../outside.env"], io(dir).io)).toBe(0)
    expect(await readFile(join(parent, "outside.env"), "utf8")).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"/)
    const absolute = join(await project(), "abs.env")
    expect(await main(["secret", "--write", "--file", absolute], io(dir).io)).toBe(0)
    expect(await readFile(absolute, "utf8")).toMatch(/^AUTH_SECRET="[0-9a-f]{64}"/)
  })
})

describe("line endings, trailing newlines and an AUTH_SECRET already there", () => {
  it("adds to a CRLF file with CRLF, so the file keeps one line ending", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1\r\nB=2\r\n")
    expect(await main(["secret", "--write"], io(dir).io)).toBe(0)
    const text = await readFile(join(dir, ".env"), "utf8")
    expect(text).toMatch(/^A=1\r\nB=2\r\nAUTH_SECRET="[0-9a-f]{64}".*\r\n$/)
    expect(text.replace(/\r\n/g, "")).not.toContain("\n")
  })

  it("replaces in a CRLF file without turning its other lines into LF", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1\r\nAUTH_SECRET=old\r\nB=2\r\n")
    expect(await main(["secret", "--write", "--force"], io(dir).io)).toBe(0)
    const text = await readFile(join(dir, ".env"), "utf8")
    expect(text).toMatch(/^A=1\r\nAUTH_SECRET="[0-9a-f]{64}".*\r\nB=2\r\n$/)
  })

  it("adds a line break before its line when the file has none at the end", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1")
    expect(await main(["secret", "--write"], io(dir).io)).toBe(0)
    expect(await readFile(join(dir, ".env"), "utf8")).toMatch(/^A=1\nAUTH_SECRET="[0-9a-f]{64}".*\n$/)
  })

  it("keeps an existing AUTH_SECRET without --force (replacing it signs every user out)", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "export AUTH_SECRET=old\n")
    const a = io(dir)
    expect(await main(["secret", "--write"], a.io)).toBe(1)
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("export AUTH_SECRET=old\n")
    // The way to change it without signing anyone out is rotation: the message says how.
    expect(a.err.join("\n")).toContain("AUTH_SECRET_1")
  })

  it("--force leaves exactly one AUTH_SECRET: a later duplicate (which dotenv and --env-file let win) goes too", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1\nAUTH_SECRET=old\nB=2\nAUTH_SECRET = old2\n")
    expect(await main(["secret", "--write", "--force"], io(dir).io)).toBe(0)
    const text = await readFile(join(dir, ".env"), "utf8")
    expect(secretLines(text)).toHaveLength(1)
    expect(text).not.toContain("old")
    expect(text).toMatch(/^A=1\nAUTH_SECRET="[0-9a-f]{64}".*\nB=2\n$/)
  })

  it("--force keeps `export ` on a shell-sourced file", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "export AUTH_SECRET=old\n")
    expect(await main(["secret", "--write", "--force"], io(dir).io)).toBe(0)
    expect(await readFile(join(dir, ".env"), "utf8")).toMatch(/^export AUTH_SECRET="[0-9a-f]{64}"/)
  })

  it("leaves commented-out and look-alike names alone", async () => {
    const dir = await project()
    const text = "# AUTH_SECRET=commented\nAUTH_SECRET_1=rotated\nNEXT_PUBLIC_AUTH_SECRET_HINT=x\n"
    await writeFile(join(dir, ".env"), text)
    expect(await main(["secret", "--write"], io(dir).io)).toBe(0)
    expect(await readFile(join(dir, ".env"), "utf8")).toMatch(new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}AUTH_SECRET="[0-9a-f]{64}"`))
  })
})

describe("what the file may be", () => {
  it("a directory named .env: exit 1, one line, nothing created", async () => {
    const dir = await project()
    await mkdir(join(dir, ".env"))
    const a = io(dir)
    expect(await main(["secret", "--write"], a.io)).toBe(1)
    expect(a.err).toHaveLength(1)
    expect(a.err[0]).toMatch(/^Could not write \.env: /)
    expect(await readdir(join(dir, ".env"))).toEqual([])
  })

  // Checked on the mode, not left to open(): root may open any file for writing, and a file
  // its owner made read-only should stop `--write` for root as well.
  it("a read-only file stays as it was, mode included: exit 1, one line", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1\n")
    await chmod(join(dir, ".env"), 0o444)
    const a = io(dir)
    expect(await main(["secret", "--write"], a.io)).toBe(1)
    expect(a.err).toEqual(["Could not write .env: it is read-only"])
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("A=1\n")
    expect((await stat(join(dir, ".env"))).mode & 0o777).toBe(0o444)
  })

  it("a new file is readable by its owner only (0600)", async () => {
    const dir = await project()
    expect(await main(["secret", "--write"], io(dir).io)).toBe(0)
    expect((await stat(join(dir, ".env"))).mode & 0o777).toBe(0o600)
  })

  // Deliberate: an existing file keeps the mode its owner gave it; the CLI does not tighten
  // or loosen it (a group-readable .env may be how a team shares a dev box).
  it("an existing file keeps its mode", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1\n")
    await chmod(join(dir, ".env"), 0o640)
    expect(await main(["secret", "--write"], io(dir).io)).toBe(0)
    expect((await stat(join(dir, ".env"))).mode & 0o777).toBe(0o640)
  })

  it("leaves no temporary or lock file behind", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1\n")
    expect(await main(["secret", "--write"], io(dir).io)).toBe(0)
    expect(await readdir(dir)).toEqual([".env"])
  })
})

describe("two --write runs at once", () => {
  it("lose no line and leave exactly one AUTH_SECRET; one adds it, the others keep it", async () => {
    const dir = await project()
    // Big enough that a write takes several chunks: a run that read the file while another
    // was rewriting it in place saw a truncated file, and wrote that back.
    const others = Array.from({ length: 40_000 }, (_, i) => `KEY_${i}=${"v".repeat(40)}`)
    await writeFile(join(dir, ".env"), `${others.join("\n")}\n`)
    const runs = Array.from({ length: 6 }, () => io(dir))
    const codes = await Promise.all(runs.map((run) => main(["secret", "--write"], run.io)))
    const text = await readFile(join(dir, ".env"), "utf8")
    expect(text.startsWith(`${others.join("\n")}\n`)).toBe(true)
    expect(secretLines(text)).toHaveLength(1)
    expect(codes.filter((code) => code === 0)).toHaveLength(1)
    expect(codes.filter((code) => code === 1)).toHaveLength(5)
  })

  it("creating the file: exactly one creates it, the others find its secret", async () => {
    const dir = await project()
    const runs = Array.from({ length: 6 }, () => io(dir))
    const codes = await Promise.all(runs.map((run) => main(["secret", "--write"], run.io)))
    const text = await readFile(join(dir, ".env"), "utf8")
    expect(secretLines(text)).toHaveLength(1)
    expect(text.split("\n")[0]).toMatch(SECRET_LINE)
    expect(codes.sort()).toEqual([0, 1, 1, 1, 1, 1])
  })
})

const bin = join(import.meta.dirname, "..", "..", "dist", "bin.js")

describe.skipIf(!existsSync(bin))("--write from several processes at once (built bin)", () => {
  it("one adds the secret, the others find it; every other line kept", async () => {
    const dir = await project()
    const others = Array.from({ length: 2_000 }, (_, i) => `KEY_${i}=${i}`)
    await writeFile(join(dir, ".env"), `${others.join("\n")}\n`)
    const runs = Array.from({ length: 4 }, () =>
      new Promise<number | null>((resolve) => spawn(process.execPath, [bin, "secret", "--write"], { cwd: dir, stdio: "ignore" }).on("exit", resolve)),
    )
    const codes = await Promise.all(runs)
    const text = await readFile(join(dir, ".env"), "utf8")
    expect(text.startsWith(`${others.join("\n")}\n`)).toBe(true)
    expect(secretLines(text)).toHaveLength(1)
    expect(codes.sort()).toEqual([0, 1, 1, 1])
    expect(await readdir(dir)).toEqual([".env"])
  }, 30_000)
})

describe("a run stopped midway", () => {
  // Its lock file stays; the next run waits for it (a run takes milliseconds), then says what
  // to do instead of writing beside a run that may still be going.
  it("leaves a lock the next run names, after a bounded wait, without writing", async () => {
    const dir = await project()
    await writeFile(join(dir, ".env"), "A=1\n")
    await writeFile(join(dir, ".env.portcullis-lock"), "")
    const a = io(dir)
    const started = Date.now()
    expect(await main(["secret", "--write"], a.io)).toBe(1)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(a.err).toEqual(["Could not write .env: .env.portcullis-lock is there: another `secret --write` is running, or one was stopped midway (then delete .env.portcullis-lock)"])
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("A=1\n")
  })
})

describe("a file that is not a file", () => {
  // open() on a named pipe waits for a writer: `--write` hung for good on a .env that was one.
  it.skipIf(spawnSync("mkfifo", ["--version"]).status !== 0)("a named pipe called .env: refused at once, nothing hangs", async () => {
    const dir = await project()
    expect(spawnSync("mkfifo", [join(dir, ".env")]).status).toBe(0)
    const a = io(dir)
    const code = await Promise.race([main(["secret", "--write"], a.io), new Promise((resolve) => setTimeout(() => resolve("hung"), 5_000))])
    expect(code).toBe(1)
    expect(a.err).toEqual(["Could not write .env: it is not a regular file"])
  })
})

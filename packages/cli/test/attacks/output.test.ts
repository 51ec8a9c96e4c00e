import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises"
import { createServer, type Server, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { main } from "@portcullis/cli"

/**
 * Issue 30, attacker's pass on what the CLI prints: no database password (from `--url`, a
 * stray argument or `DATABASE_URL`) in any line, whatever shape the URL has; a failure is one
 * line, never a stack; `migrate` against a host that never answers gives up in bounded time;
 * and options come from the command line only, each meaning one thing.
 */

const PASSWORD = "hunter2-Zq"

function io(cwd?: string, env: Record<string, string> = {}) {
  const out: string[] = []
  const err: string[] = []
  return { out, err, all: () => [...out, ...err].join("\n"), io: { out: (s: string) => out.push(s), err: (s: string) => err.push(s), env, cwd } }
}

const STACK = /\n\s+at .+[:(]/

describe("migrate never prints the database password", () => {
  // Every one of these once printed the password, whole or in part (the URL echoed as given,
  // or masked only up to the first "@" or not at all when the password holds "/").
  const cases: [string, string[], Record<string, string>?][] = [
    ["the URL given as a positional argument (forgot --url)", ["migrate", `postgres://app:${PASSWORD}@127.0.0.1:1/app`]],
    ["a URL without a scheme", ["migrate", "--url", `app:${PASSWORD}@127.0.0.1:1/app`]],
    ["a password holding @", ["migrate", "--url", `postgres://app:x@${PASSWORD}@127.0.0.1:1/app`]],
    ["a password holding /", ["migrate", "--url", `postgres://app:${PASSWORD}/x@127.0.0.1:1/app`]],
    ["a password holding :", ["migrate", "--url", `postgres://app:x:${PASSWORD}@127.0.0.1:1/app`]],
    ["a password in the query string", ["migrate", "--url", `postgres://app@127.0.0.1:1/app?password=${PASSWORD}`]],
    ["--url=… with a typo in the option", ["migrate", `--ulr=postgres://app:${PASSWORD}@127.0.0.1:1/app`]],
    ["a bad port", ["migrate", "--url", `postgres://app:${PASSWORD}@127.0.0.1:notaport/app`]],
    ["an unknown scheme", ["migrate", "--url", `postgress://app:${PASSWORD}@127.0.0.1:1/app`]],
    ["MySQL", ["migrate", "--url", `mysql://app:${PASSWORD}@127.0.0.1:1/app`]],
    ["DATABASE_URL without a scheme", ["migrate"], { DATABASE_URL: `app:${PASSWORD}@127.0.0.1:1/app` }],
    ["DATABASE_URL with a / in the password", ["migrate"], { DATABASE_URL: `postgres://app:${PASSWORD}/x@127.0.0.1:1/app` }],
  ]
  for (const [what, argv, env] of cases) {
    it(what, async () => {
      const a = io(undefined, env)
      const code = await main(argv, a.io)
      expect(code).toBeGreaterThan(0)
      expect(a.all()).not.toContain(PASSWORD)
      expect(a.all()).not.toContain(PASSWORD.slice(0, 7))
      expect(a.all()).not.toMatch(STACK)
    })
  }

  it("still says which database failed, with the user and host and the password masked", async () => {
    const a = io()
    expect(await main(["migrate", "--url", `postgres://app:${PASSWORD}/x@127.0.0.1:1/app`], a.io)).toBe(1)
    expect(a.err).toHaveLength(1)
    expect(a.err[0]).toMatch(/^postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/app: /)
  })
})

describe("migrate against a host that accepts and then never answers", () => {
  // A TCP peer that takes the connection and says nothing: a firewall that drops, a wrong
  // port on a busy machine. The driver's handshake waits for bytes that never come.
  let silent: Server
  let port: number
  const sockets: Socket[] = []
  beforeAll(async () => {
    silent = createServer((socket) => void sockets.push(socket))
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    port = (silent.address() as { port: number }).port
  })
  afterAll(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => silent.close(resolve))
  })

  for (const scheme of ["postgres", "mysql"]) {
    it(`${scheme}: fails within 15 s with exit 1 and one line, and nothing crashes afterwards`, async () => {
      // MySQL once printed its line and then died of an uncaught "connect ETIMEDOUT" (with a
      // stack): the pool was closed while a connection attempt was still pending.
      const late: unknown[] = []
      const record = (error: unknown) => void late.push(error)
      process.on("uncaughtException", record)
      try {
        const a = io()
        const started = Date.now()
        const code = await main(["migrate", "--url", `${scheme}://app:${PASSWORD}@127.0.0.1:${port}/app`], a.io)
        const ms = Date.now() - started
        expect(code, a.all()).toBe(1)
        expect(ms).toBeLessThan(15_000)
        expect(a.err, a.all()).toHaveLength(1)
        expect(a.err[0]).toMatch(new RegExp(`^${scheme}://app:\\*\\*\\*@127\\.0\\.0\\.1:${port}/app: `))
        expect(a.all()).not.toContain(PASSWORD)
        expect(a.all()).not.toMatch(STACK)
        // Longer than any connect timeout the command sets: a pending attempt would fail by now.
        await new Promise((resolve) => setTimeout(resolve, 6_000))
        expect(late).toEqual([])
      } finally {
        process.off("uncaughtException", record)
      }
    }, 40_000)
  }
})

describe("secret: options mean one thing each, and come from the command line only", () => {
  const HEX = /[0-9a-f]{64}/

  it("--help wins over --write: help printed, nothing written, no secret", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-args-"))
    const a = io(dir)
    expect(await main(["secret", "--help", "--write"], a.io)).toBe(0)
    expect(a.all()).toContain("Usage: npx @portcullis/cli secret")
    expect(a.all()).not.toMatch(HEX)
    expect(await readdir(dir)).toEqual([])
  })

  it("--write=<file> is refused (--write takes no value): exit 2, nothing written", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-args-"))
    const a = io(dir)
    expect(await main(["secret", "--write=.env.production"], a.io)).toBe(2)
    expect(a.all()).not.toMatch(HEX)
    expect(await readdir(dir)).toEqual([])
  })

  it("an empty --file is refused, not taken as 'no --file' (it once wrote the detected file instead)", async () => {
    for (const argv of [["secret", "--write", "--file="], ["secret", "--write", "--file", ""], ["secret", "--file="]]) {
      const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-args-"))
      const a = io(dir)
      expect(await main(argv, a.io), argv.join(" ")).toBe(2)
      expect(a.all(), argv.join(" ")).not.toMatch(HEX)
      expect(await readdir(dir), argv.join(" ")).toEqual([])
    }
  })

  it("a file name after --framework is refused, not silently preferred to the framework's file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-args-"))
    const a = io(dir)
    expect(await main(["secret", "--write", "--framework", "next", "prod.env"], a.io)).toBe(2)
    expect(await readdir(dir)).toEqual([])
  })

  // Deliberate: after `--` everything is an argument (POSIX), so `-- --raw` names a file
  // called "--raw". The message says which file was written.
  it("-- ends the options: what follows is the file name", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-args-"))
    const a = io(dir)
    expect(await main(["secret", "--write", "--", "--raw"], a.io)).toBe(0)
    expect(await readFile(join(dir, "--raw"), "utf8")).toMatch(HEX)
    expect(a.out[0]).toContain("--raw")
  })

  it("the environment adds no options: npm_config_* and friends do not turn on --write or --force", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-args-"))
    await writeFile(join(dir, ".env"), "AUTH_SECRET=old\n")
    const env = { npm_config_write: "true", npm_config_force: "true", PORTCULLIS_FORCE: "1", AUTH_SECRET_FILE: join(dir, ".env") }
    const a = io(dir, env)
    expect(await main(["secret", "--raw"], a.io)).toBe(0)
    expect(await readFile(join(dir, ".env"), "utf8")).toBe("AUTH_SECRET=old\n")
    expect(a.out).toHaveLength(1)
  })

  it("an unknown option is one line plus the usage, and no secret", async () => {
    const a = io()
    expect(await main(["secret", "--wirte"], a.io)).toBe(2)
    expect(a.err[0]!.split("\n")[0]).toBe("Unknown option '--wirte'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- \"--wirte\"")
    expect(a.all()).not.toMatch(HEX)
  })
})

describe("migrate --table-prefix cannot reach the SQL", () => {
  // The prefix is part of every table, index and constraint name. Kysely quotes names, and the
  // adapter checks them, but a bad prefix is a usage error: refused before anything is opened.
  for (const prefix of ['x"; DROP TABLE users; --', "auth-", "1auth_", "auth_ "]) {
    it(`refuses ${JSON.stringify(prefix)} with exit 2, before the database file exists`, async () => {
      const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-prefix-"))
      const a = io()
      expect(await main(["migrate", "--url", `sqlite:${join(dir, "auth.db")}`, "--table-prefix", prefix], a.io)).toBe(2)
      expect(a.err[0]).toMatch(/^--table-prefix takes letters, digits and _ only/)
      expect(await readdir(dir)).toEqual([])
    })
  }

  it("takes a plain prefix (the control)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "portcullis-cli-prefix-"))
    const a = io()
    expect(await main(["migrate", "--url", `sqlite:${join(dir, "auth.db")}`, "--table-prefix", "auth_"], a.io), a.all()).toBe(0)
    expect(a.out.at(-1)).toMatch(/applied \d{4}_\w+$/)
  })
})

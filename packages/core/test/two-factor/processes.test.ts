/**
 * Issue 28, item 11, with real processes: two app instances, each its own Node process
 * (`instance-process.ts`, bundled from the sources here), behind their own HTTP servers on
 * one PostgreSQL database or one Redis. One challenge cookie passed on one process is
 * refused on the other, and 50 copies sent to both at once, each with a valid backup code,
 * give one session. Before the fix each process kept its own spent mark: two sessions.
 * Both processes write the audit trail to the same store: that one session is recorded
 * once, and every record of the burst has an id of its own.
 */
import { fork, type ChildProcess } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { build } from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import type { Adapter } from "@portcullis/core/adapters"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { SqlAdapter } from "@portcullis/sql-adapter"
import { Browser } from "../helpers.js"
import { postgresGate } from "../postgres-gate.js"
import { totpCode } from "@portcullis/core/two-factor"
import { auditTrail } from "@portcullis/core/integration"
import { everyPage } from "../audit/support.js"
import { ADA_ID, enroll, firstFactor, secondFactor, twoFactorApp } from "./support.js"

const packages = fileURLToPath(new URL("../../../", import.meta.url))
const source = (name: string) => join(packages, name, "src")

let dir: string
let bundle: string
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "portcullis-2fa-processes-"))
  bundle = join(dir, "instance.mjs")
  // The sources of this checkout, bundled with their dependencies: a child process runs
  // exactly the code under test, without a build of the packages.
  await build({
    entryPoints: [fileURLToPath(new URL("./instance-process.ts", import.meta.url))],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    logLevel: "silent",
    alias: Object.fromEntries(["core", "memory-adapter", "sql-adapter", "redis-adapter"].map((name) => [`@portcullis/${name}`, source(name)])),
    external: ["pg-native"],
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  })
}, 60_000)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** One instance process; `origin` once it listens. */
class Instance {
  readonly child: ChildProcess
  readonly origin: Promise<string>

  constructor(options: Record<string, unknown>) {
    this.child = fork(bundle, [JSON.stringify(options)], { execArgv: [], stdio: ["ignore", "inherit", "inherit", "ipc"] })
    this.origin = new Promise((resolve, reject) => {
      this.child.once("error", reject)
      this.child.once("exit", (code) => reject(new Error(`instance exited with ${code}`)))
      this.child.on("message", (message: { origin?: string }) => message.origin && resolve(message.origin))
    })
  }

  async browser(): Promise<Browser> {
    return new Browser((request) => fetch(request, { redirect: "manual" }), await this.origin)
  }

  kill(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null || this.child.signalCode !== null) return resolve()
      this.child.removeAllListeners("exit")
      this.child.once("exit", () => resolve())
      this.child.kill()
    })
  }
}

function copyTo(from: Browser, to: Browser): Browser {
  for (const [name, cookie] of from.jar) to.jar.set(name, { ...cookie })
  return to
}

const signedIn = (browser: Browser) => browser.sessionCookie() !== undefined

/** The suite both stores run: `open` gives the parent's adapter and the children's options. */
function suite(open: () => Promise<{ adapter: Adapter; options: Record<string, unknown>; close(): Promise<void> }>) {
  let store: Awaited<ReturnType<typeof open>>
  let instances: Instance[]
  let backupCodes: string[]
  let secret: string
  beforeAll(async () => {
    store = await open()
    await store.adapter.createUser!({ id: ADA_ID, name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
    // Ada enrolls through a runtime in this process: the record is in the shared store.
    ;({ secret, backupCodes } = await enroll(twoFactorApp({}, store.adapter).config))
    instances = [new Instance(store.options), new Instance(store.options)]
    await Promise.all(instances.map((i) => i.origin))
  }, 60_000)
  afterAll(async () => {
    await Promise.all(instances?.map((i) => i.kill()) ?? [])
    await store?.close()
  })

  it("a challenge passed on process A is refused on process B, with another valid code", async () => {
    const victim = await instances[0]!.browser()
    await firstFactor(victim)
    const attacker = copyTo(victim, await instances[1]!.browser())
    expect((await secondFactor(victim, backupCodes[9]!)).status).toBe(302)
    expect(signedIn(victim)).toBe(true)
    const replay = await secondFactor(attacker, backupCodes[8]!)
    expect(replay.headers.get("location")).toContain("error=TwoFactorChallengeInvalid")
    expect(signedIn(attacker)).toBe(false)
  })

  it("50 copies of one challenge at once over both processes, each with a valid code: one session, recorded once", async () => {
    const since = new Date()
    const first = await instances[0]!.browser()
    await firstFactor(first)
    const copies = await Promise.all(Array.from({ length: 50 }, async (_, i) => copyTo(first, await instances[i % 2]!.browser())))
    await Promise.all(copies.map((copy, i) => secondFactor(copy, [totpCode(secret), ...backupCodes.slice(0, 8)][i % 9]!)))
    expect(copies.filter(signedIn)).toHaveLength(1)
    // The trail both processes wrote, read here through the shared store.
    const reader = twoFactorApp({}, store.adapter).config
    const burst = await everyPage(reader, { userId: ADA_ID, since })
    expect(burst.filter((record) => record.type === "signIn")).toHaveLength(1)
    expect(new Set(burst.map((record) => record.id)).size).toBe(burst.length)
    expect((await auditTrail(reader, { userId: ADA_ID, type: "signIn", since })).records).toHaveLength(1)
  })
}

const { service, postgres } = await postgresGate()
postgres.describe("two processes on PostgreSQL", () => {
  suite(async () => {
    const database: TestDatabase = await openTestDatabase("postgres", { url: service.url })
    return {
      // The children store the trail (auditTrail: true); this side reads it through the same tables.
      adapter: SqlAdapter(database.db, { tables: database.tables, passwords: true, auditTrail: true }),
      options: { store: "postgres", url: service.url, tables: database.tables },
      close: () => database.close(),
    }
  })
})

const redis = await redisAvailable()
redis.describe("two processes on Redis", () => {
  suite(async () => {
    const prefix = `portcullis-2fa-processes:${crypto.randomUUID().slice(0, 8)}:`
    const client = createRedisClient(redisService().url, { logger: { error() {}, warn() {} } })
    await new Promise((resolve) => client.once("ready", resolve))
    return {
      adapter: RedisAdapter(client, { prefix }),
      options: { store: "redis", url: redisService().url, prefix },
      close: async () => {
        const found: string[] = []
        for await (const batch of client.scanStream({ match: `${prefix}*`, count: 500 })) found.push(...(batch as string[]))
        if (found.length) await client.del(...found)
        client.disconnect()
      },
    }
  })
})

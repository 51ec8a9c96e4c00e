/**
 * `@portcullis/redis-adapter/scripts`, the Lua script runner every extension's Redis store
 * uses: a script the server has never seen runs (EVALSHA's NOSCRIPT answered with EVAL), it
 * is cached after, a script's own error reaches the caller, and 50 racing callers of a
 * single-use script on a cold cache still get exactly one winner. Real Redis.
 */
import { randomBytes } from "node:crypto"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Redis } from "ioredis"
import { redisAvailable } from "@portcullis/adapter-test"
import { openRedisPrefix } from "@portcullis/adapter-test/redis"
import { runScript, script } from "@portcullis/redis-adapter/scripts"

const redisGate = await redisAvailable()

/** A script no server has cached: a random comment makes its source, so its SHA-1, new. */
const fresh = (body: string) => script(`-- ${randomBytes(8).toString("hex")}\n${body}`)

const exists = async (client: Redis, sha: string) => ((await client.script("EXISTS", sha)) as number[])[0]

describe("the @portcullis/redis-adapter/scripts entry", () => {
  it("imports ioredis for its types only: node:crypto is its one runtime import", () => {
    // Comments hold examples of how stores import the entry; only code counts.
    const source = readFileSync(new URL("../src/scripts.ts", import.meta.url), "utf8").replace(/\/\*[\s\S]*?\*\//g, "")
    const runtime = [...source.matchAll(/^(?:import|export)\s+(?!type\b)[^"']*?from\s+["']([^"']+)["']/gm)].map((m) => m[1])
    expect(runtime).toEqual(["node:crypto"])
    expect(source).toMatch(/^import type \{[^}]*\} from "ioredis"$/m)
  })

  it("is exported as a subpath of the package, with its types", () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"))
    expect(manifest.exports["./scripts"]).toEqual({ types: "./dist/scripts.d.ts", default: "./dist/scripts.js" })
    expect(manifest.typesVersions["*"].scripts).toEqual(["./dist/scripts.d.ts"])
  })

  it("gives a script its SHA-1, the one Redis computes", () => {
    const s = script(`return 1`)
    expect(s.sha).toBe("e0e1f9fabfc9d4800c877a703b823ac0578ff8db")
    expect(s.source).toBe(`return 1`)
  })
})

redisGate.describe("runScript on a real Redis", () => {
  let redis: Awaited<ReturnType<typeof openRedisPrefix>>
  beforeAll(async () => {
    redis = await openRedisPrefix("pcscripts")
  })
  afterAll(() => redis?.close())

  it("runs a script the server does not know (NOSCRIPT → EVAL), which loads it for the next EVALSHA", async () => {
    const { client, prefix } = redis
    const SET = fresh(`redis.call("SET", KEYS[1], ARGV[1]) return redis.call("GET", KEYS[1])`)
    expect(await exists(client, SET.sha)).toBe(0)
    expect(await runScript(client, SET, [`${prefix}a`], ["first"])).toBe("first")
    expect(await exists(client, SET.sha)).toBe(1)
    expect(await runScript(client, SET, [`${prefix}a`], [2])).toBe("2")
    expect(await client.get(`${prefix}a`)).toBe("2")
  })

  it("throws the script's own error as it is, without running it a second time", async () => {
    const { client, prefix } = redis
    const FAIL = fresh(`redis.call("INCR", KEYS[1]) return redis.error_reply("refused on purpose")`)
    await expect(runScript(client, FAIL, [`${prefix}count`], [])).rejects.toThrow(/refused on purpose/)
    // EVALSHA failed with NOSCRIPT, EVAL ran it once: one increment, not two.
    expect(await client.get(`${prefix}count`)).toBe("1")
    await expect(runScript(client, FAIL, [`${prefix}count`], [])).rejects.toThrow(/refused on purpose/)
    expect(await client.get(`${prefix}count`)).toBe("2")
  })

  it("50 racing callers of a single-use script, on a cold cache: exactly one wins", async () => {
    const { client, prefix } = redis
    const TAKE_ONCE = fresh(`if redis.call("SET", KEYS[1], ARGV[1], "NX") then return 1 end return 0`)
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => runScript(client, TAKE_ONCE, [`${prefix}ticket`], [`caller-${i}`])))
    expect(answers.filter((a) => a === 1)).toHaveLength(1)
    expect(answers.filter((a) => a === 0)).toHaveLength(49)
    const winner = answers.indexOf(1)
    expect(await client.get(`${prefix}ticket`)).toBe(`caller-${winner}`)
  })

  it("fails cleanly, with the client's error, when Redis is gone", async () => {
    const { prefix } = redis
    const { connectRedis } = await import("@portcullis/adapter-test/redis")
    const gone = connectRedis("redis://127.0.0.1:1")
    await expect(runScript(gone, fresh(`return 1`), [`${prefix}x`], [])).rejects.toThrow()
    gone.disconnect()
  })
})

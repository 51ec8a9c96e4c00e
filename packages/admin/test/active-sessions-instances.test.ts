/**
 * Active sessions across instances: another Node process — its own Redis connection, JWT
 * sessions in the same `RedisSessionRegistry` — signs people in, and this process's admin
 * console counts their sessions with its own, since the count is the shared store's.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import { RedisSessionRegistry } from "@portcullis/redis-adapter"
import { SECRET } from "../../core/test/helpers.js"
import { connectRedis, deleteKeys, redis, redisGate } from "../../organizations/test/redis-harness.js"
import { testbed } from "./support.js"
import { nextLine } from "./worker-process.js"

const worker = fileURLToPath(new URL("./fixtures/session-worker.ts", import.meta.url))

redisGate.describe("active sessions, two instances on one Redis registry", () => {
  const prefix = `portcullis-test:active:${randomBytes(4).toString("hex")}:`
  const client = connectRedis()
  let child: ChildProcessWithoutNullStreams
  beforeAll(async () => {
    await client.connect()
    child = spawn(process.execPath, ["--no-warnings", worker, JSON.stringify({ url: redis.url, prefix, secret: SECRET })], { stdio: ["pipe", "pipe", "pipe"] })
    expect(await nextLine(child)).toBe("ready")
  }, 30_000)
  afterAll(async () => {
    child?.kill()
    await deleteKeys(client, prefix)
    await client.quit()
  })

  const signInThere = async (email: string) => {
    const answer = nextLine(child)
    child.stdin.write(`signin ${email}\n`)
    return answer
  }

  it("the sessions the other instance signed in are counted here, with this instance's own", async () => {
    const bed = testbed({ config: { session: { strategy: "jwt", registry: new RedisSessionRegistry(client, { prefix }) } } })
    const ada = await bed.person("ada")
    // Bob's account, in this instance's adapter: the console ends sessions of users it knows.
    await bed.person("bob", { signedIn: false })
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBe(1)
    for (const email of ["bob@example.com", "bob@example.com", "carol@example.com"]) expect(await signInThere(email)).toBe("true")
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBe(4)
    // Ending bob's sessions here leaves what the other instance made for carol.
    await ada.server().revokeSessions("user-bob")
    expect((await ada.get("api/stats?days=1")).body.activeSessions).toBe(2)
  })
})

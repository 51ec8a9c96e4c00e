/**
 * Two instances, one ban store: this process bans through the console, and another Node
 * process — its own Redis connection, the same store — refuses the user's next sign-in,
 * then lets them in again once the ban is lifted here.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process"
import { randomBytes } from "node:crypto"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, expect, it } from "vitest"
import { redisBanStore } from "@portcullis/admin/redis"
import { SECRET } from "../../core/test/helpers.js"
import { connectRedis, deleteKeys, redis, redisGate } from "../../organizations/test/redis-harness.js"
import { testbed } from "./support.js"
import { nextLine } from "./worker-process.js"

const worker = fileURLToPath(new URL("./fixtures/sign-in-worker.ts", import.meta.url))

redisGate.describe("two instances on one Redis", () => {
  const prefix = `portcullis-test:bans:${randomBytes(4).toString("hex")}:`
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
    return JSON.parse(await answer) as { location: string; session: boolean }
  }

  it("a ban here refuses sign-in there, and lifting it here lets them in there", async () => {
    const bed = testbed({ store: redisBanStore(client, { prefix }) })
    const ada = await bed.person("ada")
    await bed.person("bob")
    expect(await signInThere("bob@example.com")).toMatchObject({ session: true })
    expect((await ada.post("users/user-bob/ban", { reason: "spam" })).status).toBe(200)
    const refused = await signInThere("bob@example.com")
    expect(refused.session).toBe(false)
    expect(new URL(refused.location).searchParams.get("error")).toBe("AccountSuspended")
    expect((await ada.post("users/user-bob/unban")).body).toEqual({ lifted: true })
    expect(await signInThere("bob@example.com")).toMatchObject({ session: true })
  }, 30_000)
})

/**
 * Step-up marks on a real Redis (the rate-limit store of `@portcullis/redis-adapter`), two
 * app instances sharing it: a step-up proven on one instance is honoured by the other, and
 * the mark ends with Redis's own expiry of `stepUp.maxAge`.
 */
import { afterAll, beforeAll, expect, it } from "vitest"
import { redisAvailable, redisService } from "@portcullis/adapter-test"
import { createRedisClient } from "@portcullis/redis-adapter"
import { redisRateLimitStore } from "@portcullis/redis-adapter/rate-limit"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import type { Browser } from "../helpers.js"
import { act, ada, reauthenticate, signIn, stepUpApp, type StepUpApp } from "./app.js"

const redis = await redisAvailable()

redis.describe("step-up marks on Redis, two instances", () => {
  let client: ReturnType<typeof createRedisClient>
  const apps: StepUpApp[] = []
  beforeAll(async () => {
    client = createRedisClient(redisService().url, { commandTimeoutMs: 1_000, logger: { error() {}, warn() {} } })
    await new Promise((resolve) => client.once("ready", resolve))
  })
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()))
    client?.disconnect()
  })

  const on = (app: StepUpApp, browser: Browser) => {
    const moved = app.browser()
    for (const [name, cookie] of browser.jar) moved.jar.set(name, { ...cookie })
    return moved
  }

  it("a password step-up on one instance opens the gate on the other until maxAge ends in Redis", async () => {
    const store = redisRateLimitStore(client, { prefix: `pcl-stepup-${crypto.randomUUID().slice(0, 8)}` })
    const adapter = MemoryAdapter()
    const one = await stepUpApp({ stepUp: { store, maxAge: 2 } }, adapter)
    const two = await stepUpApp({ stepUp: { store, maxAge: 2 } }, adapter, false)
    apps.push(one, two)
    const browser = one.browser()
    await signIn(browser)
    // Marked by the sign-in on instance one, read on instance two.
    expect((await act(on(two, browser), "/account/delete")).status).toBe(200)
    await new Promise((resolve) => setTimeout(resolve, 2_200))
    expect(await act(on(two, browser), "/account/delete")).toEqual({ status: 403, body: { error: "StepUpRequired" } })
    expect((await reauthenticate(browser, ada.password)).error).toBeNull()
    expect((await act(on(two, browser), "/account/delete")).status).toBe(200)
  })
})

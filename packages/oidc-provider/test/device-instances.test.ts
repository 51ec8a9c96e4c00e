/**
 * The device approval across instances: two provider instances, each with its own Redis
 * connection to one store, take 25 + 25 concurrent approvals of one user code from the same
 * person; exactly one wins, one grant survives, and the device gets tokens once. And the
 * fault: the store failing mid-approval answers 503 and leaves no grant behind.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Redis } from "ioredis"
import { connectRedis } from "@portcullis/adapter-test/redis"
import { redisOidcProviderStore } from "@portcullis/oidc-provider/redis"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import type { OidcProviderStore } from "@portcullis/oidc-provider"
import { Browser, direct } from "../../core/test/helpers.js"
import { CLIENTS, ORIGIN, field, testbed } from "./support.js"
import { openRedisStore, redisGate } from "./store-harness.js"

const DEVICE = "urn:ietf:params:oauth:grant-type:device_code"
const TV = { clientId: "tv", redirectUris: [], grantTypes: [DEVICE] as any, name: "TV" }

redisGate.describe("two instances on one Redis", () => {
  let harness: Awaited<ReturnType<typeof openRedisStore>>
  let second: Redis
  beforeAll(async () => {
    harness = await openRedisStore()
    second = connectRedis()
  })
  afterAll(async () => {
    second?.disconnect()
    await harness?.cleanup()
  })

  it("of 2 × 25 concurrent approvals of one user code, exactly one wins; the device gets tokens once", async () => {
    const a = testbed({ store: harness.store, provider: { clients: [...CLIENTS, TV] } })
    // Instance B: its own connection, the same users (adapter) and secret; the same person's session works on both.
    const b = testbed({ store: redisOidcProviderStore(second, { prefix: harness.prefix }), provider: { clients: [...CLIENTS, TV] }, config: { adapter: a.adapter, providers: a.config.providers } })
    const ada = await a.person("ada")
    const onB = new Browser(direct(b.config), ORIGIN)
    for (const [k, v] of ada.browser.jar) onB.jar.set(k, { ...v })

    const started = await a.call("/auth/oidc/device_authorization", { form: { client_id: "tv", scope: "openid" } })
    const { device_code, user_code } = started.body
    const tokenA = field(await (await ada.browser.request("/auth/oidc/device")).text(), "csrfToken")
    const tokenB = field(await (await onB.request("/auth/oidc/device")).text(), "csrfToken")
    const approve = (browser: Browser, csrfToken: string) => browser.request("/auth/oidc/device", { form: { csrfToken, user_code, decision: "allow" } })
    const answers = await Promise.all([
      ...Array.from({ length: 25 }, () => approve(ada.browser, tokenA)),
      ...Array.from({ length: 25 }, () => approve(onB, tokenB)),
    ])
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409 || s === 400)).toHaveLength(49)
    expect(await harness.store.listGrants(ada.id, "tv")).toHaveLength(1)

    const first = await b.call("/auth/oidc/token", { form: { grant_type: DEVICE, device_code, client_id: "tv" } })
    expect(first.status).toBe(200)
    const again = await a.call("/auth/oidc/token", { form: { grant_type: DEVICE, device_code, client_id: "tv" } })
    expect(again.body.error).toBe("expired_token")
  }, 60_000)
})

describe("the store failing mid-approval", () => {
  it("answers 503 and leaves no live grant; the code can still be approved once the store is back", async () => {
    const inner = memoryOidcProviderStore()
    let failing = false
    const store = new Proxy(inner, {
      get(target, key) {
        const value = Reflect.get(target, key, target)
        if (key === "decideDevice") return async (...args: unknown[]) => {
          if (failing) throw new Error("connection reset")
          return (value as Function).apply(target, args)
        }
        return typeof value === "function" ? value.bind(target) : value
      },
    }) as OidcProviderStore
    const bed = testbed({ store, provider: { clients: [...CLIENTS, TV] } })
    const ada = await bed.person("ada")
    const { user_code } = (await bed.call("/auth/oidc/device_authorization", { form: { client_id: "tv", scope: "openid" } })).body
    const csrfToken = field(await (await ada.browser.request("/auth/oidc/device")).text(), "csrfToken")
    failing = true
    const down = await ada.browser.request("/auth/oidc/device", { form: { csrfToken, user_code, decision: "allow" } })
    expect(down.status).toBe(503)
    expect(await inner.listGrants(ada.id, "tv")).toEqual([])
    expect((await inner.findDeviceByUserCode(user_code.replace("-", "")))?.status).toBe("pending")
    failing = false
    expect((await ada.browser.request("/auth/oidc/device", { form: { csrfToken, user_code, decision: "allow" } })).status).toBe(200)
    expect(await inner.listGrants(ada.id, "tv")).toHaveLength(1)
  })
})

import { describe, expect, it } from "vitest"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import type { OidcProviderStore } from "@portcullis/oidc-provider"
import { RP, SECRET_WEB, basic, codeFor, testbed } from "./support.js"

/** The memory store behind a switch: while `down`, every call fails as a lost connection would. */
function switchable() {
  const state = { down: false, failOn: new Set<string>() }
  const inner = memoryOidcProviderStore()
  const store = new Proxy(inner, {
    get(target, name) {
      const value = (target as unknown as Record<string | symbol, unknown>)[name]
      if (typeof value !== "function") return value
      return (...args: unknown[]) => {
        if (state.down || state.failOn.has(String(name))) return Promise.reject(new Error("connect ECONNREFUSED 10.0.0.5:5432 (table oidc_codes)"))
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    },
  }) as OidcProviderStore
  return { store, state }
}

describe("the store failing", () => {
  it("token answers 503 JSON without the driver's message or a stack, and the code is not spent", async () => {
    const { store, state } = switchable()
    const bed = testbed({ store })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    state.down = true
    const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
    expect(answer.status).toBe(503)
    expect(answer.headers.get("content-type")).toContain("application/json")
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|oidc_codes|at .*\.ts/)
    state.down = false
    const later = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
    expect(later.status).toBe(200)
  })

  it("userinfo answers 503 JSON while the grant cannot be read, never 200 nor 401", async () => {
    const { store, state } = switchable()
    const bed = testbed({ store })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    const tokens = (await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })).body
    state.failOn.add("getGrant")
    const answer = await bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(answer.status).toBe(503)
    expect(JSON.stringify(answer.body)).not.toMatch(/ECONNREFUSED|oidc_codes/)
    state.failOn.clear()
    expect((await bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200)
  })

  it("a failure mid-exchange (saving the refresh token) leaves no half-issued answer: 503 without tokens", async () => {
    const { store, state } = switchable()
    const bed = testbed({ store })
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid offline_access" })
    state.failOn.add("saveRefreshToken")
    const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
    expect(answer.status).toBe(503)
    expect(answer.body.access_token).toBeUndefined()
  })

  it("discovery still answers; authorize shows the themed 503 page", async () => {
    const { store, state } = switchable()
    const bed = testbed({ store })
    const ada = await bed.person("ada")
    state.down = true
    expect((await bed.call("/auth/oidc/.well-known/openid-configuration")).status).toBe(200)
    const page = await ada.browser.request("/auth/oidc/authorize?response_type=code&client_id=web&redirect_uri=" + encodeURIComponent(RP))
    expect(page.status).toBe(503)
    expect(page.headers.get("location")).toBeNull()
  })
})

/**
 * The SSO store down or hanging while the attacker (or anyone) comes in: every route answers
 * a clear 503 — never a 500 with a stack, never a session — and a domain that requires SSO
 * stays closed to passwords during the outage (the gate fails closed).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SsoStore } from "../../src/store/types.js"
import { assembledApp, noStack, type App, type Tenant } from "./app.js"

let mode: "up" | "down" | "slow" = "up"
/** The SSO store as a failing backend: rejects (down) or never answers (slow) while `mode` says so. */
function flaky(store: SsoStore): SsoStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (typeof value !== "function") return value
      return (...args: unknown[]) => {
        if (mode === "down") return Promise.reject(new Error("connect ECONNREFUSED 10.0.0.9:5432 password=hunter2"))
        if (mode === "slow") return new Promise(() => {})
        return value.apply(target, args)
      }
    },
  })
}

let app: App
let secure: Tenant
let token: string
const password = "correct horse battery staple"

beforeAll(async () => {
  app = await assembledApp({ store: flaky })
  secure = await app.tenant("secure", "secure.test", { requireSso: true })
  token = await app.scimToken(secure.connection)
})
afterAll(async () => {
  mode = "up"
  await app.close()
})

async function clear(response: Response) {
  const body = await response.text()
  expect(response.status, body.slice(0, 200)).not.toBe(500)
  expect(noStack(body)).toBe(true)
  expect(body).not.toContain("hunter2")
  return response.status
}

describe("the SSO store down", () => {
  it("a password sign-in for a domain that requires SSO is refused, not let through", async () => {
    const staff = await app.passwordUser("staff@secure.test")
    mode = "down"
    const b = app.browser()
    await clear(await b.signIn({ email: staff.email, password }))
    mode = "up"
    expect(b.sessionCookie()).toBeUndefined()
  })

  it("a genuine response at the ACS is a 503 and signs no one in; the same response works once the store is back", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, secure.connection)
    const form = app.acsForm(secure.idp, secure.connection, requestId, { nameId: "outage", attributes: { mail: ["outage@secure.test"] } })
    mode = "down"
    expect(await clear(await app.postAcs(b, secure.connection.id, form))).toBe(503)
    mode = "up"
    expect(b.sessionCookie()).toBeUndefined()
    expect(await app.adapter.getUserByEmail!("outage@secure.test")).toBeNull()
  })

  it("SCIM answers 503, never a stack, and provisions nothing", async () => {
    mode = "down"
    const answer = await app.scim(token, secure.connection.id, "POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "down@secure.test", emails: [{ value: "down@secure.test" }] })
    const status = await clear(answer)
    mode = "up"
    expect(status).toBe(503)
    expect(await app.adapter.getUserByEmail!("down@secure.test")).toBeNull()
  })

  it("the start route answers 503", async () => {
    const b = app.browser()
    const csrfToken = await b.csrfToken()
    mode = "down"
    const status = await clear(await b.request("/auth/sso/start", { form: { email: "ada@secure.test", csrfToken } }))
    mode = "up"
    expect(status).toBe(503)
  })
})

describe("the SSO store hanging", () => {
  it("the ACS answers 503 within the store's bound, with no session", async () => {
    const b = app.browser()
    const requestId = await app.startSaml(b, secure.connection)
    const form = app.acsForm(secure.idp, secure.connection, requestId, { nameId: "slow", attributes: { mail: ["slow@secure.test"] } })
    mode = "slow"
    const started = Date.now()
    const status = await clear(await app.postAcs(b, secure.connection.id, form))
    mode = "up"
    expect(status).toBe(503)
    expect(Date.now() - started).toBeLessThan(15_000)
    expect(b.sessionCookie()).toBeUndefined()
  }, 20_000)
})

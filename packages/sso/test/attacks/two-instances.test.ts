/**
 * Two app instances on one Redis (each its own server, configuration and Redis connection, one
 * key prefix; in one process — the store's own two-process races are in ../multi-instance.test.ts),
 * behind one public origin as behind a load balancer: a SAML response accepted by one is refused by the other, and of 50 posts of one
 * response spread over both, exactly one signs anyone in. Skipped without Redis (a failure
 * with CI=true).
 */
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { redisSsoStore } from "../../src/redis.js"
import { connectRedis, deleteKeys, redisGate, testPrefix } from "../redis-harness.js"
import { Browser } from "../../../core/test/helpers.js"
import { assembledApp, type App, type Tenant } from "./app.js"

redisGate.describe("two instances on one Redis", () => {
  const prefix = testPrefix()
  const clients = [connectRedis(), connectRedis()]
  let one: App
  let two: App
  let acme: Tenant

  beforeAll(async () => {
    await Promise.all(clients.map((c) => c.connect()))
    one = await assembledApp({ backing: redisSsoStore(clients[0]!, { prefix }) })
    two = await assembledApp({ backing: redisSsoStore(clients[1]!, { prefix }) })
    acme = await one.tenant("acme", "acme.test")
    // The same organization on the second instance's own organizations store and adapter.
    await two.orgStore.createOrganization({ id: acme.id, name: "acme", slug: "acme", metadata: null, createdAt: new Date() }, { organizationId: acme.id, userId: "someone", role: "owner", createdAt: new Date() })
  })
  afterAll(async () => {
    await one?.close()
    await two?.close()
    await deleteKeys(clients[0]!, prefix)
    await Promise.all(clients.map((c) => c.quit()))
  })

  /**
   * A browser on instance two behind instance one's public origin (a load balancer): the Host
   * header names one, the socket is two's, so both instances see the same ACS URL and audience.
   */
  function behindBalancer(): Browser {
    return new Browser(async (request) => {
      const headers: Record<string, string> = {}
      request.headers.forEach((value, name) => (headers[name] = value))
      headers.host = new URL(one.server.origin).host
      const body = request.method === "GET" ? undefined : Buffer.from(await request.arrayBuffer())
      const url = new URL(request.url)
      // node:http, not fetch: fetch does not let a caller set Host.
      return new Promise<Response>((resolve, reject) => {
        const sent = httpRequest({ host: "127.0.0.1", port: two.server.port, method: request.method, path: url.pathname + url.search, headers }, (res) => {
          const chunks: Buffer[] = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => {
            const out = new Headers()
            for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) out.append(name, v)
            resolve(new Response(res.statusCode === 204 || res.statusCode === 304 ? null : Buffer.concat(chunks), { status: res.statusCode!, headers: out }))
          })
        })
        sent.on("error", reject)
        sent.end(body)
      })
    }, one.server.origin)
  }

  /** A response of acme's IdP for a request. */
  function formFor(app: App, requestId: string, email: string) {
    return app.acsForm(acme.idp, acme.connection, requestId, { nameId: email, attributes: { mail: [email] } })
  }

  it("instance two accepts a fresh response for a request instance one started (the balancer works)", async () => {
    const b = one.browser()
    const requestId = await one.startSaml(b, acme.connection)
    // The same browser (its cookies, the binding among them), its next requests sent to instance two.
    const elsewhere = behindBalancer()
    for (const [name, cookie] of b.jar) elsewhere.jar.set(name, cookie)
    const answer = await two.postAcs(elsewhere, acme.connection.id, formFor(one, requestId, "bal@acme.test"))
    expect(answer.status).toBe(302)
    expect(elsewhere.sessionCookie()).toBeDefined()
  })

  it("a response accepted by one instance is refused by the other", async () => {
    const b = one.browser()
    const requestId = await one.startSaml(b, acme.connection)
    const form = formFor(one, requestId, "ada@acme.test")
    expect((await one.postAcs(b, acme.connection.id, form)).status).toBe(302)
    const attacker = behindBalancer()
    const replayed = await two.postAcs(attacker, acme.connection.id, form)
    expect(replayed.status).toBeGreaterThanOrEqual(400)
    expect(replayed.status).toBeLessThan(500)
    expect(attacker.sessionCookie()).toBeUndefined()
  })

  it("50 posts of one response over both instances sign in once", async () => {
    const b = one.browser()
    const requestId = await one.startSaml(b, acme.connection)
    const form = formFor(one, requestId, "race@acme.test")
    // The browser that started it (its cookies, the binding among them) posting 50 times, half through each instance.
    const browsers = Array.from({ length: 50 }, (_, i) => {
      const x = i % 2 ? behindBalancer() : one.browser()
      for (const [name, cookie] of b.jar) x.jar.set(name, cookie)
      return [i % 2 ? two : one, x] as const
    })
    const answers = await Promise.all(browsers.map(([app, x]) => app.postAcs(x, acme.connection.id, form)))
    expect(answers.every((r) => r.status < 500)).toBe(true)
    expect(browsers.filter(([, x]) => x.sessionCookie())).toHaveLength(1)
  })
})

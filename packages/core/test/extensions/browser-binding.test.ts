/**
 * `req.browser`: a value bound to the browser that starts a round trip through another site,
 * opened once when it comes back. What it is for: a response made for an attacker's own
 * account, fed into a victim's browser, finds no binding (or another value) there.
 */
import { describe, expect, it } from "vitest"
import { defineExtension } from "@portcullis/core/extension"
import { Browser, credentialsConfig, direct } from "../helpers.js"

function trip() {
  return defineExtension({
    id: "trip",
    routes: [
      { method: "GET", path: "start/:value", access: "anyone", handler: async (req) => (await req.browser.bind("saml", req.params.value!), { json: { bound: true } }) },
      { method: "GET", path: "back", access: "anyone", handler: async (req) => ({ json: { value: await req.browser.bound("saml") } }) },
      { method: "GET", path: "other", access: "anyone", handler: async (req) => ({ json: { value: await req.browser.bound("oidc") } }) },
      { method: "GET", path: "bad", access: "anyone", handler: async (req) => (await req.browser.bind("Not A Flow", "x"), { json: {} }) },
    ],
  })
}

function other() {
  return defineExtension({ id: "other", routes: [{ method: "GET", path: "back", access: "anyone", handler: async (req) => ({ json: { value: await req.browser.bound("saml") } }) }] })
}

const setup = () => {
  const config = credentialsConfig({ extensions: [trip(), other()] })
  return { config, handler: direct(config) }
}

const value = async (response: Response) => ((await response.json()) as { value: string | null }).value

describe("a value bound to the browser", () => {
  it("comes back once, in the browser that bound it", async () => {
    const { handler } = setup()
    const browser = new Browser(handler)
    expect((await browser.request("/auth/trip/start/request-1")).status).toBe(200)
    expect(await value(await browser.request("/auth/trip/back"))).toBe("request-1")
    // Opened means gone: a second look (a replayed return) finds nothing.
    expect(await value(await browser.request("/auth/trip/back"))).toBeNull()
  })

  it("is not in another browser: the victim of a fed response has none, or only their own", async () => {
    const { handler } = setup()
    const attacker = new Browser(handler)
    const victim = new Browser(handler)
    await attacker.request("/auth/trip/start/attackers-request")
    expect(await value(await victim.request("/auth/trip/back"))).toBeNull()
    await victim.request("/auth/trip/start/victims-request")
    expect(await value(await victim.request("/auth/trip/back"))).toBe("victims-request")
  })

  it("is bound to the extension and the flow: another flow or extension opens nothing", async () => {
    const { handler } = setup()
    const browser = new Browser(handler)
    await browser.request("/auth/trip/start/r1")
    expect(await value(await browser.request("/auth/trip/other"))).toBeNull()
    await browser.request("/auth/trip/start/r2")
    expect(await value(await browser.request("/auth/other/back"))).toBeNull()
  })

  it("is sealed: a cookie edited or made up opens to nothing", async () => {
    const { handler, config } = setup()
    const browser = new Browser(handler)
    const started = await browser.request("/auth/trip/start/request-one-plaintext")
    const cookie = started.headers.getSetCookie().find((c) => c.includes("state"))!
    expect(cookie).toMatch(/SameSite=Lax/i)
    expect(cookie).not.toContain("request-one-plaintext") // long: a 2-letter value turns up in random base64url by chance
    const name = cookie.slice(0, cookie.indexOf("="))
    const forged = await handler(new Request(`${browser.origin}/auth/trip/back`, { headers: { cookie: `${name}=eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..x.y.z` } }))
    expect(await value(forged)).toBeNull()
    expect(config.extensions).toHaveLength(2)
  })

  it("refuses a malformed flow name as the extension's bug (500, logged), never a cookie", async () => {
    const { handler } = setup()
    const response = await new Browser(handler).request("/auth/trip/bad")
    expect(response.status).toBe(500)
    expect(response.headers.getSetCookie().filter((c) => c.includes("state"))).toEqual([])
  })
})

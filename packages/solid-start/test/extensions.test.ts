/**
 * Issue 31: the configured extensions' server functions through SolidStart
 * (`extensions(request, config)`), bound to the request — and the extension's routes
 * answered by the `GET`/`POST` handlers under the prefix. The extension is the shared fixture.
 */
import { describe, expect, it } from "vitest"
import { extensions, NotSignedIn, SolidAuth, type SolidAuthConfig } from "@portcullis/solid-start"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { probeExtension } from "../../core/test/extensions/fixture.js"

function setup() {
  const probe = probeExtension()
  // The prefix the shared Browser signs in under.
  const config = { ...credentialsConfig({ extensions: [probe.extension] }), prefix: "/auth" } satisfies SolidAuthConfig
  const { GET, POST } = SolidAuth(config)
  const browser = new Browser((request) => (request.method === "GET" ? GET : POST)({ request }))
  /** The browser's request to one of the app's own routes (a `"use server"` function's POST, a page's GET). */
  const appRequest = (init: RequestInit = {}) => new Request(new URL("/notes", browser.origin), { ...init, headers: { cookie: browser.cookieHeader(), ...init.headers } })
  return { probe, config, browser, appRequest }
}

describe("extensions' server functions in SolidStart", () => {
  it("see the signed-in user of the request, and no one before sign-in", async () => {
    const { config, browser, appRequest } = setup()
    expect(await (await extensions(appRequest(), config)).probe.whoami()).toBeNull()
    await browser.signIn()
    expect(await (await extensions(appRequest(), config, { clientAddress: "203.0.113.9" })).probe.whoami()).toBe("user-ada")
  })

  it("throw NotSignedIn from requireSession without a session", async () => {
    const { config, appRequest } = setup()
    await expect((await extensions(appRequest(), config)).probe.mustBeSignedIn()).rejects.toBeInstanceOf(NotSignedIn)
  })

  it("refuse a cross-site POST before the function runs, and serve a same-site one", async () => {
    const { config, browser, appRequest, probe } = setup()
    await browser.signIn()
    probe.ran.length = 0
    const crossSite = appRequest({ method: "POST", headers: { origin: "https://evil.example" } })
    await expect((async () => (await extensions(crossSite, config)).probe.whoami())()).rejects.toMatchObject({ type: "MissingCSRF" })
    expect(probe.ran).toEqual([])
    const sameSite = appRequest({ method: "POST", headers: { origin: browser.origin } })
    expect(await (await extensions(sameSite, config)).probe.whoami()).toBe("user-ada")
  })

  it("serve the extension's routes through the GET handler under the prefix", async () => {
    const { browser } = setup()
    expect(await (await browser.request("/auth/probe/hello/solid")).json()).toEqual({ hello: "solid" })
    expect((await browser.request("/auth/probe/me")).status).toBe(401)
    await browser.signIn()
    expect(await (await browser.request("/auth/probe/me")).json()).toEqual({ userId: "user-ada" })
  })
})

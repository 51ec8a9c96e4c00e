/**
 * Issue 31: the configured extensions' server functions through Express
 * (`extensions(req, config)`), bound to the request, on a real Express server — and the
 * extension's routes served by the middleware under its mount path. The extension is the
 * shared fixture; nothing here is specific to it but its id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import { AuthError, extensions, type ExpressAuthConfig } from "@portcullis/express"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { probeExtension } from "../../core/test/extensions/fixture.js"
import { expressServer } from "./support.js"

describe("extensions' server functions on Express", () => {
  const probe = probeExtension()
  const config = credentialsConfig({ extensions: [probe.extension] }) satisfies ExpressAuthConfig
  let server: Awaited<ReturnType<typeof expressServer>>

  /** Runs `call` on the request's functions; a refusal answers its status and `type`. */
  const route = (call: (fns: Awaited<ReturnType<typeof extensions<typeof config>>>) => Promise<unknown>): express.RequestHandler => async (req, res) => {
    try {
      res.json({ result: await call(await extensions(req, config)) })
    } catch (error) {
      if (!(error instanceof AuthError)) throw error
      res.status(error.type === "NotSignedIn" ? 401 : 403).json({ error: error.type })
    }
  }

  beforeAll(async () => {
    server = await expressServer(config, (app) => {
      app.all("/whoami", express.urlencoded({ extended: false }), route((fns) => fns.probe.whoami()))
      app.get("/must", route((fns) => fns.probe.mustBeSignedIn()))
    })
  })
  afterAll(() => server.close())

  it("see the signed-in user of the request, and no one for another browser", async () => {
    const ada = new Browser(server.transport, server.origin)
    await ada.signIn()
    expect(await (await ada.request("/whoami")).json()).toEqual({ result: "user-ada" })
    const stranger = new Browser(server.transport, server.origin)
    expect(await (await stranger.request("/whoami")).json()).toEqual({ result: null })
  })

  it("throw NotSignedIn from requireSession without a session", async () => {
    const stranger = new Browser(server.transport, server.origin)
    const response = await stranger.request("/must")
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: "NotSignedIn" })
  })

  it("refuse a cross-site POST, or one without the form's CSRF token, before the function runs; serve one with it", async () => {
    const ada = new Browser(server.transport, server.origin)
    await ada.signIn()
    const csrfToken = await ada.csrfToken()
    probe.ran.length = 0
    const crossSite = await ada.request("/whoami", { form: { csrfToken }, headers: { origin: "https://evil.example" } })
    expect(crossSite.status).toBe(403)
    expect(await crossSite.json()).toEqual({ error: "MissingCSRF" })
    // Express checks nothing of a form post itself: the token is core's check, as for session management.
    const noToken = await ada.request("/whoami", { method: "POST", headers: { origin: server.origin } })
    expect(await noToken.json()).toEqual({ error: "MissingCSRF" })
    const wrongToken = await ada.request("/whoami", { form: { csrfToken: "forged" }, headers: { origin: server.origin } })
    expect(await wrongToken.json()).toEqual({ error: "MissingCSRF" })
    expect(probe.ran).toEqual([])
    const sameSite = await ada.request("/whoami", { form: { csrfToken }, headers: { origin: server.origin } })
    expect(await sameSite.json()).toEqual({ result: "user-ada" })
    expect(probe.ran).toEqual(["whoami"])
  })

  it("serve the extension's routes under the middleware's mount path", async () => {
    const ada = new Browser(server.transport, server.origin)
    expect(await (await ada.request("/auth/probe/hello/express")).json()).toEqual({ hello: "express" })
    expect((await ada.request("/auth/probe/me")).status).toBe(401)
    await ada.signIn()
    expect(await (await ada.request("/auth/probe/me")).json()).toEqual({ userId: "user-ada" })
  })
})

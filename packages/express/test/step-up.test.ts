/**
 * Step-up re-authentication through the Express wrappers (docs/step-up.md): a route gated
 * with `requireStepUp` and the 2FA wrappers refuse a session whose sign-in is older than
 * `stepUp.maxAge` (the app redirects to `reauthenticateUrl`), and open again after a fresh
 * sign-in; `stepUpStatus` says which.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import express from "express"
import { reauthenticateUrl, requireStepUp, startTwoFactor, StepUpRequired, stepUpStatus, type ExpressAuthConfig } from "@portcullis/express"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { expressServer } from "./support.js"

describe("step-up on Express", () => {
  const config: ExpressAuthConfig = credentialsConfig({ adapter: MemoryAdapter(), session: { strategy: "jwt" }, twoFactor: {}, stepUp: { maxAge: 300 } })
  let server: Awaited<ReturnType<typeof expressServer>>
  beforeAll(async () => {
    server = await expressServer(config, (app) => {
      const form = express.urlencoded({ extended: false })
      const gated = (handler: (req: express.Request) => Promise<unknown>): express.RequestHandler => async (req, res, next) => {
        try {
          res.json(await handler(req))
        } catch (error) {
          if (error instanceof StepUpRequired) return void res.redirect(303, reauthenticateUrl(req, config, "/account"))
          next(error)
        }
      }
      app.post("/account/delete", form, gated((req) => requireStepUp(req, config)))
      app.post("/account/2fa/start", form, gated((req) => startTwoFactor(req, config)))
      app.get("/account/step-up", gated((req) => stepUpStatus(req, config)))
    })
  })
  afterAll(() => server.close())
  afterEach(() => vi.useRealTimers())

  it("opens the gate for a fresh sign-in and closes it after stepUp.maxAge, sending the browser to re-authenticate", async () => {
    const browser = new Browser(server.transport, server.origin)
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    expect(await (await browser.request("/account/delete", { form: { csrfToken } })).json()).toEqual({ userId: "user-ada" })
    expect(await (await browser.request("/account/step-up")).json()).toMatchObject({ signedIn: true, fresh: true })

    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 301_000 })
    const refused = await browser.request("/account/2fa/start", { form: { csrfToken } })
    expect(refused.status).toBe(303)
    const target = new URL(refused.headers.get("location")!)
    expect(target.pathname).toBe("/auth/reauthenticate")
    expect(target.searchParams.get("callbackUrl")).toBe("/account")
    expect(await (await browser.request("/account/step-up")).json()).toEqual({ signedIn: true, fresh: false, freshUntil: null })

    // The page offers a sign-in (no password provider here), which marks the new session.
    const page = await browser.request(`${target.pathname}${target.search}`)
    expect(await page.text()).toContain(`/auth/signin?callbackUrl=${encodeURIComponent(`${server.origin}/account`)}`)
    await browser.signIn()
    const started = await browser.request("/account/2fa/start", { form: { csrfToken: await browser.csrfToken() } })
    expect(((await started.json()) as { qrSvg: string }).qrSvg).toMatch(/^<svg/)
  })
})

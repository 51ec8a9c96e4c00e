/**
 * Two-factor authentication through a real Express server: enrollment with the wrapper's
 * API for the signed-in user, then a sign-in that needs the code page.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import express from "express"
import { confirmTwoFactor, startTwoFactor, type ExpressAuthConfig } from "@portcullis/express"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig } from "../../core/test/helpers.js"
import { expressServer } from "./support.js"
import { previousStepCode } from "../../core/test/two-factor/previous-step.js"

describe("two-factor authentication on Express", () => {
  const config: ExpressAuthConfig = credentialsConfig({ adapter: MemoryAdapter(), session: { strategy: "jwt" }, twoFactor: {} })
  let server: Awaited<ReturnType<typeof expressServer>>
  beforeAll(async () => {
    server = await expressServer(config, (app) => {
      app.use(express.urlencoded({ extended: false }))
      // The user is the session's: the wrappers take no user id.
      app.post("/account/2fa/start", async (req, res) => {
        try {
          res.json(await startTwoFactor(req, config))
        } catch (error) {
          res.status(401).json({ error: (error as { type?: string }).type })
        }
      })
      app.post("/account/2fa/confirm", async (req, res) => {
        try {
          res.json(await confirmTwoFactor(req, config, { code: String(req.body.code) }))
        } catch (error) {
          res.status(400).json({ error: (error as { type?: string }).type })
        }
      })
    })
  })
  afterAll(() => server.close())

  it("refuses enrollment without a session", async () => {
    const browser = new Browser(server.transport, server.origin)
    const response = await browser.request("/account/2fa/start", { form: { csrfToken: await browser.csrfToken() } })
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: "NotSignedIn" })
  })

  it("enrolls the signed-in user, then asks for the code at the next sign-in", async () => {
    const browser = new Browser(server.transport, server.origin)
    await browser.signIn()
    // Just signed in: the sign-in is the step-up (docs/step-up.md).
    const csrfToken = await browser.csrfToken()
    const { secret, qrSvg, uri } = (await (await browser.request("/account/2fa/start", { form: { csrfToken } })).json()) as { secret: string; qrSvg: string; uri: string }
    expect(qrSvg).toMatch(/^<svg/)
    expect(uri).toContain("ada%40example.com")
    const confirmed = await browser.request("/account/2fa/confirm", { form: { code: await previousStepCode(secret), csrfToken } })
    expect(((await confirmed.json()) as { backupCodes: string[] }).backupCodes).toHaveLength(10)
    await browser.signOut()

    const signIn = await browser.signIn()
    expect(signIn.headers.get("location")).toBe(`${server.origin}/auth/two-factor`)
    expect(await browser.session()).toBeNull()
    const page = await browser.request("/auth/two-factor")
    expect(page.status).toBe(200)
    const verified = await browser.request("/auth/two-factor", { form: { code: totpCode(secret), csrfToken } })
    expect(verified.status).toBe(302)
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
  })
})

/**
 * The device grant end to end: openid-client (initiateDeviceAuthorization and
 * pollDeviceAuthorizationGrant) on the device's side; Chromium on the person's — it opens
 * verification_uri, signs in, types the user code, approves — over a real socket.
 */
import * as oidc from "openid-client"
import type { Browser as Chromium, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { axeViolations, browserAvailable, launchChromium } from "../../../e2e/support.js"
import { httpServer, type TestServer } from "../../core/test/http-server.js"
import { CLIENTS, testbed } from "./support.js"

const DEVICE = "urn:ietf:params:oauth:grant-type:device_code"

describe.runIf(browserAvailable())("the device flow with openid-client and Chromium", () => {
  let server: TestServer
  let bed: ReturnType<typeof testbed>
  let chromium: Chromium
  let config: oidc.Configuration

  beforeAll(async () => {
    bed = testbed({ provider: { clients: [...CLIENTS, { clientId: "tv", redirectUris: [], grantTypes: [DEVICE, "refresh_token"], name: "Living Room TV" }] } })
    server = await httpServer(bed.config as AuthConfig)
    chromium = await launchChromium()
    await bed.adapter.createUser!({ id: "user-ada", email: "ada@example.com", name: "Ada", emailVerified: new Date() })
    config = await oidc.discovery(new URL(`${server.origin}/auth/oidc`), "tv", undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] })
  }, 60_000)
  afterAll(async () => {
    await chromium?.close()
    await server?.close()
  })

  /** In a fresh browser: verification_uri → sign in → the code typed → the consent screen answered. */
  async function answerInChromium(verificationUri: string, userCode: string, button: "Allow" | "Deny"): Promise<Page> {
    const context = await chromium.newContext()
    const page = await context.newPage()
    await page.goto(verificationUri)
    await page.waitForURL((url) => url.pathname === "/auth/signin")
    await page.locator('input[name="email"]').first().fill("ada@example.com")
    await page.locator('form:has(input[name="email"]) button[type="submit"]').first().click()
    await page.waitForURL((url) => url.pathname === "/auth/oidc/device")
    await page.getByLabel("Code").fill(userCode.toLowerCase())
    await page.getByRole("button", { name: "Continue" }).click()
    await page.getByRole("heading", { name: "Connect Living Room TV to your account?" }).waitFor()
    await page.getByRole("button", { name: button }).click()
    await page.getByRole("status").waitFor()
    return page
  }

  it("approves in Chromium; openid-client's polling gets the tokens; the device code gives nothing a second time", async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: "openid email offline_access" })
    expect(started.user_code).toMatch(/^[A-Z]{4}-[A-Z]{4}$/)
    const polling = oidc.pollDeviceAuthorizationGrant(config, started)
    const page = await answerInChromium(started.verification_uri, started.user_code, "Allow")
    expect(await page.getByRole("status").textContent()).toContain("Your device is connected")
    await page.context().close()
    const tokens = await polling
    expect(tokens.claims()?.sub).toBe("user-ada")
    expect(tokens.refresh_token).toBeTruthy()
    const info = await oidc.fetchUserInfo(config, tokens.access_token, "user-ada")
    expect(info.email).toBe("ada@example.com")

    const again = await fetch(`${server.origin}/auth/oidc/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: DEVICE, device_code: started.device_code, client_id: "tv" }) })
    expect(again.status).toBe(400)
    expect((await again.json()).error).toBe("expired_token")
  }, 60_000)

  it("denied in Chromium: the polling ends with access_denied", async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: "openid" })
    const polling = oidc.pollDeviceAuthorizationGrant(config, started).then(() => "tokens", (error: unknown) => (error as { error?: string }).error)
    const page = await answerInChromium(started.verification_uri_complete!, started.user_code, "Deny")
    await page.context().close()
    expect(await polling).toBe("access_denied")
  }, 60_000)

  it("the code-entry page and its consent screen have no axe-core violations, in English and in Arabic (right to left)", async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: "openid email" })
    for (const locale of ["en-US", "ar"]) {
      const context = await chromium.newContext({ bypassCSP: true, locale })
      const page = await context.newPage()
      await page.goto(started.verification_uri_complete!)
      await page.locator('input[name="email"]').first().fill("ada@example.com")
      await page.locator('form:has(input[name="email"]) button[type="submit"]').first().click()
      await page.waitForURL((url) => url.pathname === "/auth/oidc/device")
      expect(await axeViolations(page), `${locale} code entry`).toEqual([])
      await page.locator('button[type="submit"]').last().click()
      await page.locator('button[name="decision"]').first().waitFor()
      expect(await axeViolations(page), `${locale} consent`).toEqual([])
      await context.close()
    }
  }, 60_000)

  it("too-fast polling is told slow_down", async () => {
    const started = await oidc.initiateDeviceAuthorization(config, { scope: "openid" })
    const pollNow = async () => (await (await fetch(`${server.origin}/auth/oidc/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: DEVICE, device_code: started.device_code, client_id: "tv" }) })).json()).error
    expect(await pollNow()).toBe("authorization_pending")
    expect(await pollNow()).toBe("slow_down")
  })
})

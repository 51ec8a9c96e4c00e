/**
 * An extension's section of the account page in Chromium, behind a real HTTP server: zero
 * axe-core violations with the section on the page (English and Arabic, right to left), and
 * its form, clicked, posts to the extension's route with the CSRF token the page minted for
 * a browser that had none, and revokes the grant; the extension's store down, the page shows
 * its status line instead, as accessible.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser as Chromium } from "playwright-core"
import { account } from "@portcullis/account"
import { axeViolations, browserAvailable, launchChromium } from "../../../e2e/support.js"
import { Browser } from "../../core/test/helpers.js"
import { httpServer, type TestServer } from "../../core/test/http-server.js"
import { seedUser } from "../../core/test/password/support.js"
import { grantsExtension } from "./fixtures/grants.js"
import { PASSWORD, testbed } from "./support.js"

const enabled = browserAvailable()

describe.runIf(enabled)("an extension's section on the account page, in Chromium", () => {
  const grants = grantsExtension()
  const bed = testbed({ config: { extensions: [account(), grants.extension] } })
  let server: TestServer
  let chromium: Chromium
  let userId: string
  let cookie: string

  beforeAll(async () => {
    server = await httpServer(bed.config)
    const user = await seedUser(bed.adapter, { email: "ada@example.com", password: PASSWORD })
    userId = user.id
    const browser = new Browser(server.transport, server.origin)
    const signedIn = await browser.request("/auth/callback/password", { form: { email: "ada@example.com", password: PASSWORD, csrfToken: await browser.csrfToken() } })
    expect(signedIn.status).toBe(302)
    cookie = browser.sessionCookie()!
    expect(cookie).toBeTruthy()
    chromium = await launchChromium()
  })
  afterAll(async () => {
    await chromium?.close()
    await server?.close()
  })

  /** A browser context with Ada's session cookie only: no CSRF cookie yet. */
  async function context(locale: string) {
    const ctx = await chromium.newContext({ bypassCSP: true, locale })
    await ctx.addCookies([{ name: "authjs.session-token", value: cookie, url: server.origin }])
    return ctx
  }

  for (const locale of ["en", "ar"] as const) {
    it(`in ${locale}: zero axe violations with the section on the page`, async () => {
      grants.grant(userId, "cli-app")
      const ctx = await context(locale)
      try {
        const page = await ctx.newPage()
        await page.goto(`${server.origin}/auth/account`)
        expect(await page.locator("html").getAttribute("lang")).toBe(locale)
        const region = page.getByRole("region", { name: "Apps you allowed" })
        expect(await region.count()).toBe(1)
        expect(await axeViolations(page), locale).toEqual([])
      } finally {
        await ctx.close()
      }
    }, 60_000)
  }

  it("with the extension's store down: the page, its status line instead of the section, zero axe violations", async () => {
    grants.state.down = true
    const ctx = await context("en")
    try {
      const page = await ctx.newPage()
      const answer = await page.goto(`${server.origin}/auth/account`)
      expect(answer?.status()).toBe(200)
      expect(await page.locator("#ext-grants").count()).toBe(0)
      expect(await page.locator("#ext-unavailable").textContent()).toBe("Some settings could not be shown right now. Try again shortly.")
      expect(await axeViolations(page)).toEqual([])
    } finally {
      grants.state.down = false
      await ctx.close()
    }
  }, 60_000)

  it("revokes the grant when its button is clicked, with the token the page minted", async () => {
    grants.grant(userId, "cli-app")
    grants.grant(userId, "tv-app")
    const ctx = await context("en")
    try {
      const page = await ctx.newPage()
      await page.goto(`${server.origin}/auth/account`)
      await page.getByRole("button", { name: "Revoke cli-app" }).click()
      await page.waitForURL(`${server.origin}/auth/account#ext-grants`)
      expect(grants.granted(userId)).toEqual(["tv-app"])
      expect(await page.getByRole("button", { name: "Revoke cli-app" }).count()).toBe(0)
      expect(await page.getByRole("button", { name: "Revoke tv-app" }).count()).toBe(1)
    } finally {
      await ctx.close()
    }
  }, 60_000)
})

import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { totpCode } from "@portcullis/core/two-factor"
import { httpServer, type TestServer } from "../packages/core/test/http-server.js"
import { PASSWORD, testbed } from "../packages/account/test/support.js"
import { artifacts, axeViolations, browserAvailable, launchChromium, tabStops } from "./support.js"

/**
 * Issue 32's account center in Chromium, over a real HTTP server: Ada signs in with her
 * password, opens the account center in English, German, Japanese and Arabic, light and
 * dark — zero axe-core violations, every control reachable by keyboard, a screenshot each —
 * then uses it: saves her profile, sets up two-factor through a wrong first code (the QR code
 * and key stay), keeps her backup codes, and signs out her other session.
 */
const enabled = browserAvailable()
const shots = join(artifacts, "account")

describe.runIf(enabled)("the account center, in Chromium", () => {
  let server: TestServer
  let browser: Browser
  let bed: ReturnType<typeof testbed>

  beforeAll(async () => {
    bed = testbed({ extension: { locate: (ip) => (ip === "127.0.0.1" ? "Loopback, Localhost" : null) }, config: { trustHost: true, theme: { colorScheme: "auto" } } })
    server = await httpServer(bed.config)
    browser = await launchChromium()
    mkdirSync(shots, { recursive: true })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  /** A browser of Ada's, signed in with her password (the sign-in's form post, as the page sends it). */
  async function signedIn(email: string, options: { locale?: string; colorScheme?: "light" | "dark"; origin?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
    const origin = options.origin ?? server.origin
    // CSP bypassed only so axe-core can be injected.
    const context = await browser.newContext({ bypassCSP: true, locale: options.locale ?? "en", colorScheme: options.colorScheme ?? "light", extraHTTPHeaders: { "accept-language": options.locale ?? "en" } })
    const { csrfToken } = (await (await context.request.get(`${origin}/auth/csrf`)).json()) as { csrfToken: string }
    const answer = await context.request.post(`${origin}/auth/callback/password`, { form: { email, password: PASSWORD, csrfToken }, maxRedirects: 0 })
    expect(answer.status()).toBe(302)
    return { context, page: await context.newPage() }
  }

  it.each([
    ["en", "light"],
    ["en", "dark"],
    ["de", "light"],
    ["de", "dark"],
    ["ja", "light"],
    ["ja", "dark"],
    ["ar", "light"],
    ["ar", "dark"],
  ] as const)("in %s, %s: zero axe violations and every control reachable by keyboard", async (locale, colorScheme) => {
    // A person of this test's own: one session, so each control has a name of its own.
    const { email } = await bed.person(`ada-${locale}-${colorScheme}`, { signedIn: false })
    const { context, page } = await signedIn(email, { locale, colorScheme })
    try {
      await page.goto(`${server.origin}/auth/account`)
      expect(await page.getAttribute("html", "lang")).toBe(locale)
      if (locale === "ar") expect(await page.getAttribute("html", "dir")).toBe("rtl")
      expect(await axeViolations(page)).toEqual([])
      const stops = await tabStops(page, 80)
      const controls = await page.locator("main input:not([type=hidden]):not([hidden]), main button, main a[href], input:not([type=hidden]):not([hidden]), button, a[href]").evaluateAll((els) => new Set(els).size)
      expect(stops.length).toBeGreaterThanOrEqual(Math.min(controls, 80))
      await page.screenshot({ path: join(shots, `${locale}-${colorScheme}.png`), fullPage: true })
    } finally {
      await context.close()
    }
  }, 60_000)

  it("a journey: profile, two-factor through a wrong code, backup codes, signing out the other session", async () => {
    const { email } = await bed.person("ada-journey", { signedIn: false })
    const other = await signedIn(email)
    const { context, page } = await signedIn(email)
    try {
      await page.goto(`${server.origin}/auth/account`)
      await page.fill("#name", "Ada Lovelace")
      await page.click("#profile button[type=submit]")
      await expect.poll(() => page.locator("[role=status]").textContent()).toBe("Saved.")
      expect(await page.inputValue("#name")).toBe("Ada Lovelace")

      await page.click("#two-factor button[type=submit]")
      const key = (await page.locator("#two-factor code.code").textContent())!.replaceAll(" ", "")
      await page.fill("#enable-code", "000000")
      await page.click("#two-factor form button[type=submit]")
      await expect.poll(() => page.locator("[role=alert]").textContent()).toContain("That code is not right")
      // The QR code and the key survived the wrong code.
      expect(await page.locator("#two-factor img").count()).toBe(1)
      expect((await page.locator("#two-factor code.code").textContent())!.replaceAll(" ", "")).toBe(key)
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: join(shots, "two-factor-wrong-code.png"), fullPage: true })
      await page.fill("#enable-code", totpCode(key))
      await page.click("#two-factor form button[type=submit]")
      await expect.poll(() => page.locator("li code").count()).toBe(10)
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: join(shots, "backup-codes.png"), fullPage: true })
      await page.click("a.button")

      await expect.poll(() => page.locator("#sessions li").count()).toBe(2)
      expect(await page.locator("#sessions").textContent()).not.toContain("Mozilla/5.0")
      await page.click("#sessions form[action$='revoke-others'] button")
      await expect.poll(() => page.locator("[role=status]").textContent()).toContain("Other sessions signed out: 1")
      const otherAnswer = await other.context.request.get(`${server.origin}/auth/account/state`)
      expect(otherAnswer.status()).toBe(401)
      await page.screenshot({ path: join(shots, "after-journey.png"), fullPage: true })
    } finally {
      await context.close()
      await other.context.close()
    }
  }, 90_000)

  it("adds a passkey from the page (core's registration, a virtual authenticator), then renames and lists it", async () => {
    // WebAuthn needs a secure context: http://localhost is one, http://127.0.0.1 is not an RP id.
    const origin = `http://localhost:${server.port}`
    const { email } = await bed.person("ada-passkey", { signedIn: false })
    const { context, page } = await signedIn(email, { origin })
    try {
      const cdp = await context.newCDPSession(page)
      await cdp.send("WebAuthn.enable")
      await cdp.send("WebAuthn.addVirtualAuthenticator", { options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true } })
      await page.goto(`${origin}/auth/account`)
      await page.click("#add-passkey")
      await page.waitForURL(/notice=passkeyAdded/)
      expect(await page.locator("[role=status]").textContent()).toBe("Your passkey was added.")
      await expect.poll(() => page.locator("#passkeys li").count()).toBe(1)
      await page.locator("#passkeys li input[name=name]").fill("This laptop")
      await page.locator("#passkeys li form").first().locator("button").click()
      await page.waitForURL(/notice=renamed/)
      expect(await page.locator("#passkeys li strong").textContent()).toBe("This laptop")
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: join(shots, "passkey-added.png"), fullPage: true })
    } finally {
      await context.close()
    }
  }, 60_000)

  it.each(["light", "dark"] as const)("the email-confirm page and a refusal card, %s: zero axe violations", async (colorScheme) => {
    const { email } = await bed.person(`ada-confirm-${colorScheme}`, { signedIn: false })
    const { context, page } = await signedIn(email, { colorScheme, locale: "ar" })
    try {
      await page.goto(`${server.origin}/auth/account/email/confirm?email=new%40example.com&token=${"0".repeat(64)}`)
      expect(await axeViolations(page)).toEqual([])
      await page.click("button[type=submit]")
      await page.waitForURL(/problem=link-invalid/)
      expect(await page.locator("[role=alert]").textContent()).toContain("هذا الرابط غير صالح")
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: join(shots, `email-confirm-refused-ar-${colorScheme}.png`), fullPage: true })
    } finally {
      await context.close()
    }
  }, 60_000)
})

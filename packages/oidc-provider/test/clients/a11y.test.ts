/**
 * The provider's own pages people see in the middle of a client's flow — the consent page and
 * the sign-out confirmation of RP-initiated logout — checked by axe-core in Chromium: zero
 * violations in English and in Arabic (right to left), each in the language the browser asks
 * for (Accept-Language) with the matching `lang` and `dir`.
 */
import type { Browser, BrowserContext } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { axeViolations, browserAvailable, launchChromium } from "../../../../e2e/support.js"
import { signInAtOp, startOp, type OpServer } from "./op-server.js"

const REDIRECT = "http://127.0.0.1/callback"
const BYE = "http://127.0.0.1/bye"

describe.runIf(browserAvailable())("the consent and sign-out confirmation pages pass axe-core", () => {
  let op: OpServer
  let browser: Browser
  let signedInState: Awaited<ReturnType<BrowserContext["storageState"]>>

  beforeAll(async () => {
    op = await startOp([{ clientId: "notes", redirectUris: [REDIRECT], postLogoutRedirectUris: [BYE], name: "Notes App" }], { scopes: ["notes:read"] })
    browser = await launchChromium()
    const person = await op.person("ines@example.com", undefined, "Inès")
    // Signed in once (in English: the sign-in page's labels are what the helper finds), then
    // that session is reused in each language's context.
    const context = await browser.newContext({ locale: "en-US" })
    const page = await context.newPage()
    await page.goto(`${op.origin}/auth/signin`)
    await signInAtOp(page, person.email)
    await page.waitForURL((url) => !url.pathname.startsWith("/auth/signin"))
    signedInState = await context.storageState()
    await context.close()
  })
  afterAll(async () => {
    await browser?.close()
    await op?.close()
  })

  const cases = [
    { locale: "en-US", lang: "en", dir: "ltr", allow: "Allow", signOut: "Sign out" },
    { locale: "ar", lang: "ar", dir: "rtl", allow: "سماح", signOut: "تسجيل الخروج" },
  ] as const

  for (const c of cases) {
    it(`in ${c.locale}: the consent page and the logout confirmation have zero axe violations`, async () => {
      // bypassCSP: the pages' CSP would (rightly) refuse the injected axe script.
      const context = await browser.newContext({ locale: c.locale, bypassCSP: true, storageState: signedInState })
      const page = await context.newPage()
      const authorize = new URL(`${op.issuer}/authorize`)
      for (const [k, v] of Object.entries({ client_id: "notes", response_type: "code", redirect_uri: REDIRECT, scope: "openid profile email offline_access notes:read", state: "s", code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuKIb2f2Hw0", code_challenge_method: "S256" })) authorize.searchParams.set(k, v)

      await page.goto(authorize.href)
      await page.locator('form button[type="submit"]').first().waitFor()
      expect(await page.getAttribute("html", "lang")).toBe(c.lang)
      expect(await page.getAttribute("html", "dir")).toBe(c.dir)
      expect(await page.textContent("body")).toContain("Notes App")
      expect(await page.getByRole("button", { name: c.allow, exact: true }).count()).toBe(1)
      expect(await axeViolations(page)).toEqual([])

      const logout = new URL(`${op.issuer}/logout`)
      logout.searchParams.set("client_id", "notes")
      logout.searchParams.set("post_logout_redirect_uri", BYE)
      logout.searchParams.set("state", "bye-state")
      await page.goto(logout.href)
      await page.locator('form button[type="submit"]').waitFor()
      expect(await page.getAttribute("html", "lang")).toBe(c.lang)
      expect(await page.getAttribute("html", "dir")).toBe(c.dir)
      expect(await page.textContent("body")).toContain("Notes App")
      expect(await page.getByRole("button", { name: c.signOut, exact: true }).count()).toBe(1)
      expect(await axeViolations(page)).toEqual([])
      await context.close()
    })
  }
})

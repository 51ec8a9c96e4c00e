import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { artifacts, axeViolations, browserAvailable, continueWithEmail, launchChromium, openEmailedLink, startExample, tabStops } from "./support.js"

/**
 * Issue 32's admin console, through the demo `npm start` runs (embedded SQLite, bans in its
 * SQL store): Ada (ADMIN_EMAILS) lists users, searches, opens Bob's page, bans him — Bob's
 * next sign-in is refused with the suspended sentence — and looks at the charts; every page
 * in English, German, Japanese and Arabic (right to left), light and dark, with zero axe
 * violations, every control reachable by keyboard, and a screenshot. And impersonation: Ada
 * acts as Bob, sees the banner on the account page, and ends it with one click.
 */
const enabled = browserAvailable()
const shots = join(artifacts, "admin")

describe.runIf(enabled)("the admin console in Chromium", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  let browser: Browser
  let ada: BrowserContext
  let bob: BrowserContext
  let adaPage: Page
  let bobPage: Page
  const adaEmail = "ada@example.com"
  const bobEmail = "bob@example.com"

  beforeAll(async () => {
    demo = await startExample(join(import.meta.dirname, "..", "examples", "express", "src", "server.ts"), { ADMIN_EMAILS: adaEmail })
    browser = await launchChromium()
    ada = await browser.newContext({ bypassCSP: true })
    bob = await browser.newContext({ bypassCSP: true })
    adaPage = await ada.newPage()
    bobPage = await bob.newPage()
    mkdirSync(shots, { recursive: true })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await demo?.stop()
  })

  const links = (to: string) =>
    [...demo.output.join("").matchAll(new RegExp(`\\[demo-smtp\\] sign-in link for ${to.replace(/[.+]/g, "\\$&")}: (\\S+)`, "g"))].map((m) => m[1]!).filter((l) => l.includes("/auth/callback/email"))

  async function signInByEmail(page: Page, email: string) {
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
    const before = links(email).length
    // Identifier-first: the address once, then the emailed link.
    await continueWithEmail(page, email)
    await page.locator('form[action$="/auth/signin/email"] button[type="submit"]').click()
    await page.waitForURL(/\/auth\/verify-request/)
    await expect.poll(() => links(email).length).toBeGreaterThan(before)
    await openEmailedLink(page, links(email).at(-1)!)
  }

  it("Ada (an admin) reaches the console from the nav and finds Bob by search", async () => {
    await signInByEmail(bobPage, bobEmail)
    await signInByEmail(adaPage, adaEmail)
    await adaPage.waitForURL(`${demo.url}/`)
    await adaPage.locator("#nav-admin").click()
    await adaPage.waitForURL(`${demo.url}/auth/admin`)
    expect(await adaPage.locator("h1").textContent()).toBe("Users")
    await adaPage.getByLabel("Email or name").fill("bob")
    await adaPage.getByRole("button", { name: "Search" }).click()
    await adaPage.waitForURL(/q=bob/)
    const rows = adaPage.locator("table.pc-table tbody tr")
    expect(await rows.count()).toBe(1)
    await rows.getByRole("link", { name: bobEmail }).click()
    await adaPage.waitForURL(/\/auth\/admin\/users\//)
    expect(await adaPage.locator("h1").textContent()).toContain("bob@example.com")
  })

  it("Bob (not an admin) gets the refusal card, not the list", async () => {
    await bobPage.goto(`${demo.url}/auth/admin`)
    expect(await bobPage.locator('[role="alert"]').textContent()).toBe("Only administrators may use the admin console.")
    expect(await bobPage.content()).not.toContain(adaEmail)
  })

  it("Ada bans Bob with a reason: his session ends and his next sign-in says the account is suspended", async () => {
    await adaPage.getByLabel("Reason").fill("Spam in the comments")
    await adaPage.getByLabel("Duration").selectOption("86400")
    await adaPage.getByRole("button", { name: "Ban", exact: true }).click()
    await adaPage.waitForURL(/done=banned/)
    expect(await adaPage.locator('[role="status"]').first().textContent()).toContain("The user is banned")
    expect(await adaPage.locator(".pc-status").textContent()).toContain("Spam in the comments")
    await bobPage.goto(demo.url)
    expect(await bobPage.locator("#nav-admin").count()).toBe(0)
    await bobPage.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
    await continueWithEmail(bobPage, bobEmail)
    const before = links(bobEmail).length
    await bobPage.locator('form[action$="/auth/signin/email"] button[type="submit"]').click()
    await bobPage.waitForURL(/\/auth\/verify-request/)
    await expect.poll(() => links(bobEmail).length).toBeGreaterThan(before)
    await openEmailedLink(bobPage, links(bobEmail).at(-1)!)
    expect(new URL(bobPage.url()).searchParams.get("error")).toBe("AccountSuspended")
    expect(await bobPage.content()).toContain("This account is suspended.")
    await bobPage.screenshot({ path: join(shots, "suspended-en.png"), fullPage: true })
  })

  it("the charts show the sign-ins as SVG with a table", async () => {
    await adaPage.goto(`${demo.url}/auth/admin/charts`)
    expect(await adaPage.locator('svg[role="img"]').count()).toBe(4)
    // Active sessions (the demo's store counts them): at least the admin's own.
    expect(await adaPage.locator("#active-sessions").textContent()).toMatch(/: [1-9]\d*$/)
    expect(await adaPage.locator("svg desc").first().textContent()).toMatch(/Total: \d+/)
    expect(await adaPage.locator("table caption").first().textContent()).toBe("Successful sign-ins by method, per day")
  })

  it("Ada lifts the ban", async () => {
    await adaPage.goto(`${demo.url}/auth/admin?q=bob`)
    await adaPage.locator("table.pc-table tbody tr a").first().click()
    await adaPage.getByRole("button", { name: "Lift the ban" }).click()
    await adaPage.waitForURL(/done=unbanned/)
    expect(await adaPage.locator(".pc-status").textContent()).toBe("Active")
  })

  it("Ada impersonates Bob: the banner shows on the account page (zero axe violations), one click ends it and she is herself again", async () => {
    await adaPage.goto(`${demo.url}/auth/admin?q=bob`)
    await adaPage.locator("table.pc-table tbody tr a").first().click()
    const userUrl = adaPage.url()
    await adaPage.getByRole("button", { name: "Impersonate" }).click()
    await adaPage.waitForURL(`${demo.url}/auth/account`)
    const banner = adaPage.getByRole("region", { name: "Impersonation" })
    expect(await banner.textContent()).toContain(`You are acting as ${bobEmail}: an impersonation by ${adaEmail}`)
    expect(await axeViolations(adaPage), "account page with the banner").toEqual([])
    await adaPage.screenshot({ path: join(shots, "impersonation-banner-en.png"), fullPage: true })
    // The demo's own pages show it too, and the console is closed to the impersonated session.
    await adaPage.goto(`${demo.url}/`)
    expect(await adaPage.locator("#impersonation-banner").count()).toBe(1)
    await adaPage.goto(userUrl)
    expect(await adaPage.locator('[role="alert"]').textContent()).toContain("You are impersonating a user")
    await adaPage.getByRole("button", { name: "End impersonation" }).click()
    await adaPage.waitForURL(/done=impersonationEnded/)
    expect(await adaPage.getByRole("region", { name: "Impersonation" }).count()).toBe(0)
    await adaPage.goto(`${demo.url}/`)
    expect(await adaPage.locator("#user-email").textContent()).toBe(adaEmail)
  })

  for (const locale of ["en", "de", "ja", "ar"] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      it(`every page in ${locale}, ${colorScheme}: zero axe violations, every control by keyboard, a screenshot`, async () => {
        const context = await browser.newContext({ bypassCSP: true, locale, colorScheme, storageState: await ada.storageState() })
        const page = await context.newPage()
        try {
          await page.goto(`${demo.url}/auth/admin?q=bob`)
          const userHref = await page.locator("table.pc-table tbody tr a").first().getAttribute("href")
          for (const [name, path] of [["users", "/auth/admin"], ["user", userHref!], ["charts", "/auth/admin/charts"]] as const) {
            await page.goto(new URL(path, demo.url).href)
            expect(await page.locator("html").getAttribute("lang")).toBe(locale)
            if (locale === "ar") expect(await page.locator("html").getAttribute("dir")).toBe("rtl")
            expect(await axeViolations(page), `${name} ${locale} ${colorScheme}`).toEqual([])
            const stops = await tabStops(page)
            const controls = await page.locator("a[href], button, input:not([type=hidden]), select").count()
            expect(stops.length, `${name}: ${stops.join(" | ")}`).toBeGreaterThanOrEqual(controls)
            await page.screenshot({ path: join(shots, `${name}-${locale}-${colorScheme}.png`), fullPage: true })
          }
        } finally {
          await context.close()
        }
      })
    }
  }
})

/**
 * Issue 32: every built-in page of core, in Chromium against a real server, in English,
 * German, Japanese and Arabic, light and dark (the explicit `theme.colorScheme` settings and
 * `"auto"` under both `prefers-color-scheme` values): zero axe-core violations of any impact,
 * every control reachable by keyboard alone with a visible focus ring, `lang`/`dir` right
 * (right-to-left for Arabic). Screenshots go to `test-results/pages/<page>-<lang>-<scheme>.png`.
 *
 * The two-factor code page needs a live challenge (a user with a TOTP secret mid-sign-in); it
 * is rendered by its renderer into the same browser instead. Core has no page of its own for
 * a signed-in password change (`POST /password/change` answers with a redirect; its form is
 * the account center's, checked in account.test.ts). The organizations accept page is
 * checked in team.test.ts.
 */
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig, Theme } from "@portcullis/core"
import { hashPassword } from "@portcullis/core/password"
import GitHub from "@portcullis/core/providers/github"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import Password from "@portcullis/core/providers/password"
import Credentials from "@portcullis/core/providers/credentials"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { httpServer, type TestServer } from "../packages/core/test/http-server.js"
import { renderTwoFactor } from "../packages/core/src/lib/pages/two-factor.js"
import { de } from "../packages/core/src/lib/i18n/catalogs/de.js"
import { en } from "../packages/core/src/lib/i18n/catalogs/en.js"
import { ja } from "../packages/core/src/lib/i18n/catalogs/ja.js"
import { ar } from "../packages/core/src/lib/i18n/catalogs/ar.js"
import { artifacts, axeViolations, browserAvailable, launchChromium, tabStops } from "./support.js"

const LANGS = { en, de, ja, ar } as const
type Lang = keyof typeof LANGS

/** The four ways a page can be light or dark. */
const SCHEMES = [
  { name: "light", setting: "light", media: "light" },
  { name: "dark", setting: "dark", media: "dark" },
  { name: "auto-light", setting: "auto", media: "light" },
  { name: "auto-dark", setting: "auto", media: "dark" },
] as const
type Setting = (typeof SCHEMES)[number]["setting"]

const user = { email: "pages@example.com", password: "a long and rather unguessable passphrase" }
const out = join(artifacts, "pages")

async function app(theme: Theme): Promise<TestServer> {
  const adapter = MemoryAdapter()
  const created = await adapter.createUser!({ id: crypto.randomUUID(), email: user.email, emailVerified: new Date(), name: null, image: null })
  await adapter.setUserPassword!(created.id, await hashPassword(user.password, { memoryCost: 1024, timeCost: 1, parallelism: 1 }))
  const config: AuthConfig = {
    secret: "a-test-secret-with-at-least-32-characters",
    trustHost: true,
    adapter,
    session: { strategy: "jwt", registry: new MemorySessionRegistry() },
    experimental: { enableWebAuthn: true },
    providers: [
      GitHub({ clientId: "id", clientSecret: "secret" }),
      Passkey({}),
      Password({ waitUntil: () => {} }),
      Nodemailer({ server: "smtp://127.0.0.1:9", from: "auth@example.com" }),
      Credentials({ credentials: { username: { label: "Username" } }, authorize: async () => null }),
    ],
    theme: { brandColor: "#4f46e5", ...theme },
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  }
  return httpServer(config)
}

/** One page: how to reach it in a fresh tab (signed out unless it signs in itself). */
interface PageCase {
  name: string
  /** Which server: the default layout, or Auth.js's. */
  layout?: "authjs"
  open(page: Page, origin: string, lang: Lang, setting: Setting): Promise<void>
}

const goto = (path: string) => async (page: Page, origin: string) => {
  await page.goto(`${origin}${path}`)
}

/** The first step of the identifier-first page, then Continue. */
async function identify(page: Page, origin: string, lang: Lang): Promise<void> {
  await page.goto(`${origin}/auth/signin`)
  await page.getByLabel(LANGS[lang].signin.emailLabel, { exact: true }).fill(user.email)
  await page.getByRole("button", { name: LANGS[lang].identifier.continue }).click()
  await page.locator("[data-identifier-methods]:not([hidden])").waitFor()
}

/**
 * How many distinct controls Tab reaches from the top of the page, by element (not by name,
 * as `tabStops` counts: Auth.js's layout has three fields all named "Email").
 */
async function reachable(page: Page, limit = 60): Promise<number> {
  // Clicking the heading moves the sequential-focus starting point to the top of the card.
  await page.locator("h1").click()
  let count = 0
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab")
    const fresh = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null
      if (!el || el === document.body || el.hasAttribute("data-tab-seen")) return false
      el.setAttribute("data-tab-seen", "")
      return true
    })
    if (!fresh) break
    count++
  }
  return count
}

/** Signed in by password through the page's own cookies (the sign-in form's post). */
async function signIn(page: Page, origin: string): Promise<void> {
  const { csrfToken } = (await (await page.request.get(`${origin}/auth/csrf`)).json()) as { csrfToken: string }
  await page.request.post(`${origin}/auth/callback/password`, { form: { csrfToken, ...user }, maxRedirects: 0 })
}

const PAGES: PageCase[] = [
  { name: "signin", open: goto("/auth/signin") },
  { name: "signin-methods", open: identify },
  {
    // The second step as the server renders it (the POST a browser without JavaScript sends):
    // the form's own submit() skips the page script's submit handler.
    name: "signin-methods-posted",
    async open(page, origin, lang) {
      await page.goto(`${origin}/auth/signin`)
      await page.getByLabel(LANGS[lang].signin.emailLabel, { exact: true }).fill(user.email)
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST" && r.url() === `${origin}/auth/signin`),
        page.evaluate(() => HTMLFormElement.prototype.submit.call(document.querySelector("form[data-identifier-step]"))),
      ])
      await page.locator("[data-identifier-methods]:not([hidden])").waitFor()
      await page.waitForLoadState()
    },
  },
  { name: "signin-authjs", layout: "authjs", open: goto("/auth/signin") },
  { name: "signin-unverified", open: goto("/auth/signin?error=CredentialsSignin&code=unverified") },
  { name: "signout", open: goto("/auth/signout") },
  { name: "error", open: goto("/auth/error?error=Verification") },
  { name: "verify-request", open: goto("/auth/verify-request?provider=nodemailer&type=email") },
  { name: "email-confirm", open: goto(`/auth/callback/nodemailer?token=abc123&email=${encodeURIComponent(user.email)}`) },
  { name: "password-signup", open: goto("/auth/password/signup") },
  { name: "password-forgot", open: goto("/auth/password/forgot") },
  { name: "password-sent", open: goto("/auth/password/sent") },
  { name: "password-reset", open: goto(`/auth/password/reset?token=abc123&email=${encodeURIComponent(user.email)}`) },
  { name: "password-verify", open: goto(`/auth/password/verify?token=abc123&email=${encodeURIComponent(user.email)}`) },
  { name: "password-verified", open: goto("/auth/password/verified") },
  { name: "password-done", open: goto("/auth/password/done") },
  {
    name: "reauthenticate",
    async open(page, origin) {
      await signIn(page, origin)
      await page.goto(`${origin}/auth/reauthenticate?callbackUrl=%2F`)
    },
  },
  {
    // The step-up page after a wrong password: its alert in the card.
    name: "reauthenticate-wrong",
    async open(page, origin) {
      await signIn(page, origin)
      await page.goto(`${origin}/auth/reauthenticate?callbackUrl=%2F&error=PasswordMismatch`)
    },
  },
  {
    // Signed in, the sign-out page (the same card, with a session to end).
    name: "signout-signed-in",
    async open(page, origin) {
      await signIn(page, origin)
      await page.goto(`${origin}/auth/signout`)
    },
  },
  // The form pages with their alerts, and the confirmation of an account without a password.
  { name: "password-signup-error", open: goto(`/auth/password/signup?error=PasswordTooShort&email=${encodeURIComponent(user.email)}`) },
  { name: "password-forgot-error", open: goto("/auth/password/forgot?error=RateLimited") },
  { name: "password-reset-error", open: goto(`/auth/password/reset?token=abc123&email=${encodeURIComponent(user.email)}&error=PasswordTooShort`) },
  { name: "password-verified-none", open: goto("/auth/password/verified?password=none") },
  {
    name: "two-factor-wrong",
    async open(page, origin, lang, setting) {
      const theme: Theme = { colorScheme: setting, brandColor: "#4f46e5" }
      await page.goto(`${origin}/auth/csrf`)
      await page.setContent(renderTwoFactor({ theme, basePath: "/auth", origin, csrfToken: "x", rememberDevice: true, messages: LANGS[lang], locale: lang, wrong: { attemptsLeft: 2 } }))
    },
  },
  {
    name: "two-factor",
    async open(page, origin, lang, setting) {
      const theme: Theme = { colorScheme: setting, brandColor: "#4f46e5" }
      await page.goto(`${origin}/auth/csrf`)
      await page.setContent(renderTwoFactor({ theme, basePath: "/auth", origin, csrfToken: "x", rememberDevice: true, messages: LANGS[lang], locale: lang }))
    },
  },
]

describe.skipIf(!browserAvailable())("every core page: axe-clean in four languages, light and dark, by keyboard", () => {
  let browser: Browser
  const servers = new Map<string, TestServer>()

  beforeAll(async () => {
    mkdirSync(out, { recursive: true })
    browser = await launchChromium()
    for (const setting of ["light", "dark", "auto"] as const) servers.set(setting, await app({ colorScheme: setting }))
    servers.set("authjs", await app({ colorScheme: "auto", layout: "authjs" }))
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    for (const server of servers.values()) await server.close()
  })

  async function open(c: PageCase, lang: Lang, scheme: (typeof SCHEMES)[number]): Promise<{ page: Page; context: BrowserContext }> {
    const server = servers.get(c.layout === "authjs" ? (scheme.setting === "auto" ? "authjs" : "") : scheme.setting)
    if (!server) throw new Error("no server")
    const context = await browser.newContext({ locale: lang, extraHTTPHeaders: { "accept-language": lang }, colorScheme: scheme.media })
    const page = await context.newPage()
    await c.open(page, server.origin, lang, scheme.setting)
    return { page, context }
  }

  for (const c of PAGES) {
    // Auth.js's layout is checked under "auto" (its server follows the browser's preference).
    // "auto" follows the browser the same way in every language: it is checked in English and
    // in Arabic (right to left); German and Japanese take the explicit light and dark settings.
    const schemesOf = (lang: Lang) =>
      c.layout === "authjs" ? SCHEMES.filter((s) => s.setting === "auto") : lang === "en" || lang === "ar" ? SCHEMES : SCHEMES.filter((s) => s.setting !== "auto")
    // The cases of a page are independent (a context each): run a few at once in the one browser.
    describe.concurrent(c.name, () => {
      for (const lang of Object.keys(LANGS) as Lang[]) {
        it.each(schemesOf(lang))(`${lang}, $name: zero axe violations, lang and dir set, a screenshot`, async (scheme) => {
          const { page, context } = await open(c, lang, scheme)
          try {
            expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([lang, lang === "ar" ? "rtl" : "ltr"])
            expect(await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches)).toBe(scheme.media === "dark")
            await page.screenshot({ path: join(out, `${c.name}-${lang}-${scheme.name}.png`), fullPage: true })
            expect(await axeViolations(page)).toEqual([])
          } finally {
            await context.close()
          }
        })
      }

      it("reaches every visible control by keyboard alone, each with a visible focus ring", async () => {
        const { page, context } = await open(c, "en", SCHEMES[2]!)
        try {
          const controls = await page.evaluate(() =>
            [...document.querySelectorAll<HTMLElement>("a[href], button, input:not([type=hidden]), select, textarea")].filter((el) => el.offsetParent !== null && !(el as HTMLInputElement).disabled).length,
          )
          expect(await reachable(page)).toBe(controls)
          // The ring: the focused control draws an outline (the stylesheet's :focus-visible).
          await page.locator("h1").click()
          await page.keyboard.press("Tab")
          const outline = await page.evaluate(() => {
            const style = getComputedStyle(document.activeElement!)
            return { width: style.outlineWidth, style: style.outlineStyle }
          })
          if (controls > 0) expect(outline).toEqual({ width: "3px", style: "solid" })
        } finally {
          await context.close()
        }
      })
    })
  }

  describe("the identifier-first journey without JavaScript", () => {
    it("posts the address and gets the methods from the server, then signs in with the password", async () => {
      const context = await browser.newContext({ locale: "de", extraHTTPHeaders: { "accept-language": "de" }, javaScriptEnabled: false })
      const page = await context.newPage()
      try {
        const origin = servers.get("auto")!.origin
        await page.goto(`${origin}/auth/signin`)
        await page.getByLabel("E-Mail", { exact: true }).fill(user.email)
        await page.getByRole("button", { name: "Weiter" }).click()
        await page.waitForLoadState()
        expect(await page.locator("[data-identifier-shown]").textContent()).toBe(user.email)
        await page.screenshot({ path: join(out, "signin-methods-nojs-de-auto-light.png"), fullPage: true })
        await page.getByLabel("Passwort", { exact: true }).fill(user.password)
        await page.getByRole("button", { name: "Mit Passwort anmelden" }).click()
        await page.waitForURL((url) => !url.pathname.startsWith("/auth/signin"))
        const session = (await (await page.request.get(`${origin}/auth/session`)).json()) as { user?: { email?: string } }
        expect(session.user?.email).toBe(user.email)
      } finally {
        await context.close()
      }
    })
  })

  describe("the identifier-first journey by keyboard", () => {
    it("types the address, Enter continues, focus lands on the first method, the methods are the same for any address", async () => {
      const context = await browser.newContext({ locale: "en" })
      const page = await context.newPage()
      try {
        const origin = servers.get("auto")!.origin
        await page.goto(`${origin}/auth/signin`)
        // GitHub's button first, then the email field.
        const stops = await tabStops(page)
        expect(stops[0]).toBe("button:Sign in with GitHub")
        expect(stops[1]).toBe("input:Email")
        await page.getByLabel("Email", { exact: true }).focus()
        await page.keyboard.type("someone-unknown@example.com")
        await page.keyboard.press("Enter")
        await page.locator("[data-identifier-methods]:not([hidden])").waitFor()
        expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Sign in with Passkey")
        expect(await page.locator("[data-identifier-shown]").first().textContent()).toBe("someone-unknown@example.com")
        expect(await page.locator('form[action$="/callback/password"] input[name=email]').inputValue()).toBe("someone-unknown@example.com")
        // The password is typed and sent from the keyboard too: the real sign-in follows.
        await page.goto(`${origin}/auth/signin`)
        await page.getByLabel("Email", { exact: true }).fill(user.email)
        await page.keyboard.press("Enter")
        await page.getByLabel("Password", { exact: true }).fill(user.password)
        await page.keyboard.press("Enter")
        await page.waitForURL((url) => !url.pathname.startsWith("/auth/signin"))
        const session = (await (await page.request.get(`${origin}/auth/session`)).json()) as { user?: { email?: string } }
        expect(session.user?.email).toBe(user.email)
      } finally {
        await context.close()
      }
    })
  })
})

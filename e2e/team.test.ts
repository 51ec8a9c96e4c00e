import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import type { Theme } from "@portcullis/core"
import { httpServer, type TestServer } from "../packages/core/test/http-server.js"
import { testbed } from "../packages/organizations/test/support.js"
import { artifacts, axeViolations, browserAvailable, launchChromium, openEmailedLink, startExample, continueWithEmail } from "./support.js"

/**
 * Issue 31's demo bullet, through the demo that `npm start` runs (embedded SQLite, the
 * organizations extension on its SQL store, the demo mail catcher printing each link): Ada
 * creates Acme and invites Bob by email; Bob, in a second browser, signs in from the
 * invitation's accept page and accepts; Ada makes him admin, he switches his active
 * organization, Ada removes him — and each change shows at Bob's next page load.
 */
const enabled = browserAvailable()
describe.runIf(enabled)("the demo's Team page, in Chromium", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  let browser: Browser
  // Two browsers: Ada's and Bob's. CSP bypassed only so axe-core can be injected into the pages.
  let ada: BrowserContext
  let bob: BrowserContext
  let adaPage: Page
  let bobPage: Page
  let invitationLink: string
  const adaEmail = "ada@example.com"
  const bobEmail = "bob@example.com"

  beforeAll(async () => {
    demo = await startExample(join(import.meta.dirname, "..", "examples", "express", "src", "server.ts"))
    browser = await launchChromium()
    ada = await browser.newContext({ bypassCSP: true })
    bob = await browser.newContext({ bypassCSP: true })
    adaPage = await ada.newPage()
    bobPage = await bob.newPage()
    mkdirSync(artifacts, { recursive: true })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await demo?.stop()
  })

  /** The mails the catcher printed for `to` whose link's path contains `path`: link and subject. */
  const mails = (to: string, path: string) =>
    [...demo.output.join("").matchAll(new RegExp(`\\[demo-smtp\\] sign-in link for ${to.replace(/[.+]/g, "\\$&")}: (\\S+) ("(?:[^"\\\\]|\\\\.)*")`, "g"))]
      .map((m) => ({ link: m[1]!, subject: JSON.parse(m[2]!) as string }))
      .filter((mail) => mail.link.includes(path))

  /** The newest mail for `to` with `path` in its link, once there are more than `before` of them. */
  async function mailFor(to: string, path: string, before: number) {
    await expect.poll(() => mails(to, path).length).toBeGreaterThan(before)
    return mails(to, path).at(-1)!
  }

  /** Signs in by a link mailed to `email` (which also verifies the address), from the sign-in page `page` shows. */
  async function signInByEmail(page: Page, email: string) {
    const before = mails(email, "/auth/callback/email").length
    await continueWithEmail(page, email)
    await page.locator('form[action$="/auth/signin/email"] button[type="submit"]').click()
    await page.waitForURL(/\/auth\/verify-request/)
    const { link, subject } = await mailFor(email, "/auth/callback/email", before)
    expect(subject).toMatch(/^Sign in to /)
    await openEmailedLink(page, link)
  }

  /** The Team page's row of the organization named `name`. */
  const organizationRow = (page: Page, name: string) => page.locator(`tr.organization[data-name="${name}"]`)
  /** The section of the organization named `name` (its members, invitations, invite form). */
  const section = (page: Page, name: string) => page.locator("section.team", { has: page.getByRole("heading", { level: 2, name, exact: true }) })

  describe("creating an organization", () => {
    it("a signed-in user reaches Team from the nav, creates Acme, and is its owner with Acme active", async () => {
      await adaPage.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
      await signInByEmail(adaPage, adaEmail)
      await adaPage.waitForURL(`${demo.url}/`)
      expect(await adaPage.textContent("#active-organization")).toContain("No active organization")

      await adaPage.locator("#nav-team").click()
      await adaPage.waitForURL(`${demo.url}/team`)
      expect(await adaPage.textContent("#no-organizations")).toContain("no organization yet")
      await adaPage.getByLabel("New organization's name").fill("Acme")
      await adaPage.getByRole("button", { name: "Create organization" }).click()
      await adaPage.waitForURL(/\/team\?notice=created/)
      expect(await adaPage.textContent("#notice")).toContain("Organization created")
      expect(await organizationRow(adaPage, "Acme").locator(".organization-role").textContent()).toBe("Owner")
      expect(await organizationRow(adaPage, "Acme").locator(".active-marker").count()).toBe(1)
      expect(await adaPage.textContent("#active-organization")).toContain("Acme")
    })

    it("the signed-out nav has no Team link, and /team sends to sign-in and back", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(demo.url)
      expect(await page.locator("#nav-team").count()).toBe(0)
      await page.goto(`${demo.url}/team`)
      expect(new URL(page.url()).pathname).toBe("/auth/signin")
      expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe("/team")
      await context.close()
    })
  })

  describe("inviting by email", () => {
    it("Ada invites Bob as a member: the mail catcher has the mail, with its subject and the accept link", async () => {
      await adaPage.goto(`${demo.url}/team`)
      const acme = section(adaPage, "Acme")
      await acme.getByLabel("Email").fill(bobEmail)
      await acme.getByLabel("Role").selectOption("member")
      await acme.getByRole("button", { name: "Send invitation" }).click()
      await adaPage.waitForURL(/\/team\?notice=invited/)
      expect(await section(adaPage, "Acme").locator(`tr.invitation[data-email="${bobEmail}"]`).count()).toBe(1)

      const mail = await mailFor(bobEmail, "/auth/organizations/invitations/", 0)
      expect(mail.subject).toBe(`${adaEmail} invited you to join Acme`)
      const link = new URL(mail.link)
      expect(link.origin).toBe(new URL(demo.url).origin)
      expect(link.pathname).toMatch(/^\/auth\/organizations\/invitations\/[^/]+$/)
      expect(link.searchParams.get("token")).toMatch(/^[\w-]{32,}$/)
      invitationLink = mail.link
    })

    it("a pending invitation can be revoked, and its link then leads nowhere", async () => {
      const carol = "carol@example.com"
      await adaPage.goto(`${demo.url}/team`)
      const acme = section(adaPage, "Acme")
      await acme.getByLabel("Email").fill(carol)
      await acme.getByRole("button", { name: "Send invitation" }).click()
      await adaPage.waitForURL(/\/team\?notice=invited/)
      const { link } = await mailFor(carol, "/auth/organizations/invitations/", 0)
      await section(adaPage, "Acme").getByRole("button", { name: `Revoke the invitation of ${carol}` }).click()
      await adaPage.waitForURL(/\/team\?notice=revoked/)
      expect(await section(adaPage, "Acme").locator(`tr.invitation[data-email="${carol}"]`).count()).toBe(0)
      const page = await browser.newPage()
      const response = await page.goto(link)
      expect(response?.status()).toBe(410)
      expect(await page.textContent("h1")).toBe("Invitation not available")
      await page.close()
    })

    it("the Team page passes axe-core (zero violations of any impact)", async () => {
      await adaPage.goto(`${demo.url}/team`)
      await adaPage.screenshot({ path: join(artifacts, "demo-team.png"), fullPage: true })
      expect(await axeViolations(adaPage)).toEqual([])
    })

    it("a refusal is shown as a sentence, never a stack: inviting a member already in", async () => {
      await adaPage.goto(`${demo.url}/team`)
      const acme = section(adaPage, "Acme")
      await acme.getByLabel("Email").fill(adaEmail)
      await acme.getByRole("button", { name: "Send invitation" }).click()
      await adaPage.waitForURL(/\/team\?problem=already-member/)
      expect(await adaPage.textContent("#problem")).toBe("This person is a member already.")
      // The page shows only its own sentences: a crafted link puts no words of its own there.
      for (const query of ["notice=constructor&problem=constructor", "notice=Hacked&problem=%3Cb%3Eno%3C%2Fb%3E", "problem=toString"]) {
        await adaPage.goto(`${demo.url}/team?${query}`)
        expect(await adaPage.locator("#notice, #problem").count()).toBe(0)
      }
    })

    it("a form posted without the page's CSRF token is refused, and changes nothing", async () => {
      const response = await ada.request.post(`${demo.url}/team/create`, { form: { name: "Forged", csrfToken: "not-the-token" }, headers: { origin: new URL(demo.url).origin }, maxRedirects: 0 })
      expect(response.status()).toBe(403)
      await adaPage.goto(`${demo.url}/team`)
      expect(await organizationRow(adaPage, "Forged").count()).toBe(0)
    })
  })

  describe("accepting in a second browser", () => {
    it("signed out, the accept link shows sign-in choices, and comes back after Bob signs in (verified by the mailed link)", async () => {
      await bobPage.goto(invitationLink)
      expect(await bobPage.textContent("h1")).toBe("Join Acme")
      expect(await bobPage.textContent("body")).toContain(`This invitation is for ${bobEmail}`)
      expect(await bobPage.getByRole("link", { name: `Create an account with ${bobEmail}` }).count()).toBe(1)
      await bobPage.getByRole("link", { name: "Sign in", exact: true }).click()
      await bobPage.waitForURL(/\/auth\/signin\?/)
      await signInByEmail(bobPage, bobEmail)
      await bobPage.waitForURL((url) => url.href === invitationLink)
      expect(await bobPage.getByRole("button", { name: "Accept invitation" }).count()).toBe(1)
    })

    it("the accept page passes axe-core (zero violations of any impact)", async () => {
      await bobPage.screenshot({ path: join(artifacts, "demo-team-accept.png"), fullPage: true })
      expect(await axeViolations(bobPage)).toEqual([])
    })

    it("Bob accepts and lands on Team (invitations.afterAccept): Acme is his active organization, and he is listed as a member", async () => {
      await bobPage.getByRole("button", { name: "Accept invitation" }).click()
      await bobPage.waitForURL(`${demo.url}/team`)
      expect(await organizationRow(bobPage, "Acme").locator(".organization-role").textContent()).toBe("Member")
      expect(await organizationRow(bobPage, "Acme").locator(".active-marker").count()).toBe(1)
      // A member may not invite: no invite form, no pending invitations, no role controls.
      expect(await section(bobPage, "Acme").locator("form.invite, form.set-role, button.remove").count()).toBe(0)
      // The invitation was used: it is pending no more on Ada's page.
      await adaPage.goto(`${demo.url}/team`)
      expect(await section(adaPage, "Acme").locator("tr.invitation").count()).toBe(0)
      expect(await section(adaPage, "Acme").locator(`tr.member[data-email="${bobEmail}"] .member-role`).textContent()).toBe("Member")
    })
  })

  describe("roles, the active organization, and removal", () => {
    it("Ada makes Bob an admin: Bob's next page load shows admin, and what admins may do", async () => {
      await adaPage.goto(`${demo.url}/team`)
      // With a member to manage, the page has its role select and remove button: axe again.
      expect(await axeViolations(adaPage)).toEqual([])
      const row = section(adaPage, "Acme").locator(`tr.member[data-email="${bobEmail}"]`)
      await row.getByRole("combobox").selectOption("admin")
      await row.getByRole("button", { name: "Change role" }).click()
      await adaPage.waitForURL(/\/team\?notice=role/)
      expect(await section(adaPage, "Acme").locator(`tr.member[data-email="${bobEmail}"]`).getAttribute("data-role")).toBe("admin")

      await bobPage.goto(`${demo.url}/team`)
      expect(await organizationRow(bobPage, "Acme").locator(".organization-role").textContent()).toBe("Admin")
      expect(await bobPage.textContent("#active-permissions")).toBe("In it you may invite members, change roles, remove members.")
      expect(await section(bobPage, "Acme").locator("form.invite").count()).toBe(1)
      // An admin can't change or remove the owner above him: her row has no controls.
      expect(await section(bobPage, "Acme").locator(`tr.member[data-email="${adaEmail}"] form`).count()).toBe(0)
    })

    it("Bob switches his active organization to one of his own, and back", async () => {
      await bobPage.getByLabel("New organization's name").fill("Bob's Garage")
      await bobPage.getByRole("button", { name: "Create organization" }).click()
      await bobPage.waitForURL(/\/team\?notice=created/)
      // Acme stays active: a new organization becomes active only when none is.
      expect(await organizationRow(bobPage, "Acme").locator(".active-marker").count()).toBe(1)

      await organizationRow(bobPage, "Bob's Garage").getByRole("button", { name: "Make Bob's Garage active" }).click()
      await bobPage.waitForURL(/\/team\?notice=switched/)
      expect(await organizationRow(bobPage, "Bob's Garage").locator(".active-marker").count()).toBe(1)
      expect(await organizationRow(bobPage, "Acme").locator(".active-marker").count()).toBe(0)
      expect(await bobPage.textContent("#active-organization")).toContain("Bob's Garage (Owner)")
      await bobPage.goto(demo.url)
      expect(JSON.parse((await bobPage.textContent("#session"))!).organizations.active).toMatchObject({ name: "Bob's Garage", role: "owner" })

      await bobPage.goto(`${demo.url}/team`)
      await organizationRow(bobPage, "Acme").getByRole("button", { name: "Make Acme active" }).click()
      await bobPage.waitForURL(/\/team\?notice=switched/)
      expect(await bobPage.textContent("#active-organization")).toContain("Acme (Admin)")
    })

    it("Ada removes Bob: Bob's next page load shows no Acme, and what can() allowed him there is gone", async () => {
      await adaPage.goto(`${demo.url}/team`)
      await section(adaPage, "Acme").getByRole("button", { name: `Remove ${bobEmail}` }).click()
      await adaPage.waitForURL(/\/team\?notice=removed/)
      expect(await section(adaPage, "Acme").locator(`tr.member[data-email="${bobEmail}"]`).count()).toBe(0)

      await bobPage.goto(`${demo.url}/team`)
      expect(await organizationRow(bobPage, "Acme").count()).toBe(0)
      expect(await section(bobPage, "Acme").count()).toBe(0)
      expect(await bobPage.locator("#active-permissions").count()).toBe(0)
      expect(await bobPage.textContent("#active-organization")).toContain("No active organization")
      expect(await organizationRow(bobPage, "Bob's Garage").count()).toBe(1)
      await bobPage.goto(demo.url)
      expect(JSON.parse((await bobPage.textContent("#session"))!).organizations.active).toBeNull()
      // The old invitation link is spent: no way back in with it.
      await bobPage.goto(invitationLink)
      expect(await bobPage.getByRole("button", { name: "Accept invitation" }).count()).toBe(0)
    })
  })
})

const LANGS = ["en", "de", "ja", "ar"] as const
/** The four ways a page can be light or dark: explicit settings, and "auto" under both preferences. */
const SCHEMES = [
  { name: "light", setting: "light", media: "light" },
  { name: "dark", setting: "dark", media: "dark" },
  { name: "auto-light", setting: "auto", media: "light" },
  { name: "auto-dark", setting: "auto", media: "dark" },
] as const

/**
 * Issue 32: the invitation accept page in each of its states (signed out, signed in as the
 * invitee, signed in as someone else, a link that leads nowhere), in four languages, light
 * and dark: zero axe-core violations, `lang`/`dir` right, every control reachable by Tab.
 */
describe.runIf(enabled)("the invitation accept page: axe-clean in four languages, light and dark, by keyboard", () => {
  let browser: Browser
  const servers = new Map<string, TestServer>()
  const beds = new Map<string, ReturnType<typeof testbed>>()
  const links = new Map<string, string>()
  const out = join(artifacts, "team-accept")

  beforeAll(async () => {
    mkdirSync(out, { recursive: true })
    browser = await launchChromium()
    for (const setting of ["light", "dark", "auto"] as const) {
      const theme: Theme = { colorScheme: setting, brandColor: "#4f46e5" }
      const bed = testbed({ config: { theme } })
      const owner = await bed.person("olivia")
      await bed.person("bob")
      await bed.person("eve")
      const created = await owner.post("", { name: "Acme" })
      await owner.post(`${created.body.organization.id}/invitations`, { email: "bob@example.com", role: "member" })
      const { id, token } = bed.invitationFor("bob@example.com")
      const server = await httpServer(bed.config)
      servers.set(setting, server)
      beds.set(setting, bed)
      links.set(setting, `${server.origin}/auth/organizations/invitations/${encodeURIComponent(id)}?token=${encodeURIComponent(token)}`)
    }
  }, 60_000)

  afterAll(async () => {
    await browser?.close()
    for (const server of servers.values()) await server.close()
  })

  /** Signs the page's browser in as `email` through the Credentials provider, on the real server. */
  async function signIn(page: Page, origin: string, email: string): Promise<void> {
    const { csrfToken } = (await (await page.request.get(`${origin}/auth/csrf`)).json()) as { csrfToken: string }
    const response = await page.request.post(`${origin}/auth/callback/credentials`, { form: { csrfToken, email }, maxRedirects: 0 })
    expect(response.status()).toBe(302)
  }

  /** Each state: who is signed in, the link opened, the English heading, and what happens next. */
  const STATES: { name: string; who: string | null; link: (l: string) => string; english: string; control: boolean; then?: (page: Page) => Promise<void> }[] = [
    { name: "signed-out", who: null, link: (l) => l, english: "Join Acme", control: true },
    { name: "invitee", who: "bob@example.com", link: (l) => l, english: "Join Acme", control: true },
    { name: "someone-else", who: "eve@example.com", link: (l) => l, english: "Join Acme", control: true },
    { name: "invalid", who: null, link: (l) => l.replace(/token=[^&]+/, "token=wrong"), english: "Invitation not available", control: false },
    {
      // The page's own form posted with a token gone stale meanwhile: the refusal as a page.
      name: "accept-failed",
      who: "bob@example.com",
      link: (l) => l,
      english: "Could not accept the invitation",
      control: false,
      async then(page) {
        await page.locator('input[name="token"]').evaluate((input: HTMLInputElement) => void (input.value = "stale"))
        await Promise.all([page.waitForURL((url) => url.pathname.endsWith("/accept")), page.locator('form button[type="submit"]').last().click()])
        await page.waitForLoadState()
      },
    },
  ]

  async function open(state: (typeof STATES)[number], lang: string, scheme: (typeof SCHEMES)[number]): Promise<{ page: Page; context: BrowserContext }> {
    const server = servers.get(scheme.setting)!
    const context = await browser.newContext({ bypassCSP: true, locale: lang, extraHTTPHeaders: { "accept-language": lang }, colorScheme: scheme.media })
    const page = await context.newPage()
    if (state.who) await signIn(page, server.origin, state.who)
    await page.goto(state.link(links.get(scheme.setting)!))
    await state.then?.(page)
    return { page, context }
  }

  for (const state of STATES) {
    // Independent cases (a context each), a few at once; "auto" follows the browser the same
    // way in every language, so it is checked in English and Arabic (right to left) only.
    describe.concurrent(state.name, () => {
      for (const lang of LANGS) {
        it.each(lang === "en" || lang === "ar" ? SCHEMES : SCHEMES.filter((s) => s.setting !== "auto"))(`${lang}, $name: zero axe violations, a title, lang and dir set`, async (scheme) => {
          const { page, context } = await open(state, lang, scheme)
          try {
            expect(await page.title()).not.toBe("")
            // The page speaks the reader's language (its lang attribute would lie otherwise).
            const heading = await page.textContent("h1")
            if (lang === "en") expect(heading).toBe(state.english)
            else expect(heading).not.toBe(state.english)
            expect(await page.evaluate(() => [document.documentElement.lang, document.documentElement.dir])).toEqual([lang, lang === "ar" ? "rtl" : "ltr"])
            await page.screenshot({ path: join(out, `${state.name}-${lang}-${scheme.name}.png`), fullPage: true })
            expect(await axeViolations(page)).toEqual([])
          } finally {
            await context.close()
          }
        })
      }

      it("reaches every visible control by keyboard alone", async () => {
        const { page, context } = await open(state, "en", SCHEMES[2])
        try {
          const controls = await page.evaluate(() =>
            [...document.querySelectorAll<HTMLElement>("a[href], button, input:not([type=hidden]), select, textarea")].filter((el) => el.offsetParent !== null).length,
          )
          await page.locator("h1").click()
          const seen = new Set<string>()
          for (let i = 0; i < controls + 2; i++) {
            await page.keyboard.press("Tab")
            const key = await page.evaluate(() => {
              const el = document.activeElement as HTMLElement | null
              if (!el || el === document.body) return null
              if (!el.dataset.tabSeen) el.dataset.tabSeen = String(Math.random())
              return el.dataset.tabSeen
            })
            if (key) seen.add(key)
          }
          expect(seen.size).toBe(controls)
          if (state.control) expect(controls).toBeGreaterThan(0)
        } finally {
          await context.close()
        }
      })
    })
  }
})

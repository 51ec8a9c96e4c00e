import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "playwright-core"
import { artifacts, browserAvailable, completeDemoOidcLogin, expectForgedHostsHarmless, launchChromium, openEmailedLink, startExample, continueWithEmail } from "./support.js"
import { exchange } from "../packages/core/test/raw-http.js"

const enabled = browserAvailable()

/** The Express demo, driven in Debian's Chromium as a person would use it. */
describe.runIf(enabled)("Express demo in Chromium", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  let browser: Browser
  beforeAll(async () => {
    demo = await startExample(join(import.meta.dirname, "..", "examples", "express", "src", "server.ts"))
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await demo?.stop()
  })

  it("signs in with the demo account, shows the session, and signs out", async () => {
    const page = await browser.newPage()
    await page.goto(demo.url)
    await expect.poll(() => page.textContent("#status")).toContain("not signed in")

    await page.click("#sign-in")
    await page.waitForURL(/\/auth\/signin/)
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "express-signin.png"), fullPage: true })

    await page.getByLabel("Username").fill("demo")
    await page.locator("form", { has: page.getByLabel("Username") }).getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: /sign in with demo account/i }).click()
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#user-name")).toBe("Demo User")
    expect(JSON.parse((await page.textContent("#session"))!)).toMatchObject({ user: { email: "demo@portcullis.dev" } })

    // Database sessions on the embedded SQLite file: the cookie is only a random token.
    const cookies = await page.context().cookies()
    const session = cookies.find((c) => c.name === "authjs.session-token")!
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" })
    expect(session.value).toMatch(/^[0-9a-f]{64}$/)

    await page.click("#sign-out")
    await page.waitForURL(/\/auth\/signout/)
    await page.getByRole("button", { name: /sign out/i }).click()
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#status")).toContain("not signed in")
    expect((await page.context().cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
  })

  it("signs in with the local OpenID provider (login and consent pages), then signs out", async () => {
    const page = await browser.newPage()
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
    await page.getByRole("button", { name: /sign in with demo oidc/i }).click()
    const issuer = /provider at (http:\/\/\S+)\)/.exec(demo.output.join(""))![1]!
    await completeDemoOidcLogin(page, issuer, demo.url + "/")
    expect(await page.textContent("#user-name")).toBe("Demo User")
    expect(await page.textContent("#user-email")).toBe("demo@portcullis.dev")
    await page.goto(`${demo.url}/auth/signout`)
    await page.getByRole("button", { name: /sign out/i }).click()
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#status")).toContain("not signed in")
  })

  it("signs in by email with the link the demo's mail catcher prints", async () => {
    const page = await browser.newPage()
    const address = `reader-${Date.now()}@example.com`
    await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
    // Identifier-first: the address once, then the emailed link among its methods.
    await continueWithEmail(page, address)
    await page.locator('form[action$="/auth/signin/email"] button[type="submit"]').click()
    await page.waitForURL(/\/auth\/verify-request/)
    const printed = new RegExp(`\\[demo-smtp\\] sign-in link for ${address.replace(/[.]/g, "\\.")}: (\\S+)`)
    await expect.poll(() => printed.exec(demo.output.join(""))?.[1], { timeout: 10_000 }).toBeTruthy()
    const link = printed.exec(demo.output.join(""))![1]!
    // The link opens a confirm page (scanners fetch links; a GET uses nothing); its button signs in.
    await openEmailedLink(page, link)
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#user-email")).toBe(address)
    // The link works once.
    await openEmailedLink(page, link)
    expect(page.url()).toContain("/auth/error?error=Verification")
  })

  it("registers a passkey, signs out, and signs back in with it (virtual authenticator)", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    await cdp.send("WebAuthn.enable")
    await cdp.send("WebAuthn.addVirtualAuthenticator", {
      options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    })
    const address = `passkey-${Date.now()}@example.com`
    // Signing up is its own button: the server never picks sign-up from the address (issue 28 item 6).
    const usePasskey = async (button = "Sign in with Passkey") => {
      await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
      await continueWithEmail(page, address)
      await page.getByRole("button", { name: button }).click()
      await page.waitForURL(demo.url + "/")
    }
    await usePasskey("Sign up with Passkey")
    expect(await page.textContent("#user-email")).toBe(address)
    await page.goto(`${demo.url}/auth/signout`)
    await page.getByRole("button", { name: /sign out/i }).click()
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#status")).toContain("not signed in")
    await usePasskey()
    expect(await page.textContent("#user-email")).toBe(address)
    await context.close()
  })

  it("a sign-in link requested under a forged Host is refused: the demo serves only its own origins (trustedOrigins, no trustHost)", async () => {
    const address = `victim-${Date.now()}@example.com`
    const port = new URL(demo.url).port
    // The attacker's script talks to the server directly, with a Host a browser would never send.
    const csrf = await exchange(port, "GET", "/auth/csrf", { host: "evil.example" })
    expect(csrf.status).toBe(400)
    // With a token from the real origin, the forged Host is still refused, and nothing is mailed.
    const real = await exchange(port, "GET", "/auth/csrf", { host: new URL(demo.url).host })
    const { csrfToken } = JSON.parse(real.body) as { csrfToken: string }
    const cookie = real.setCookie.map((c) => c.split(";")[0]).join("; ")
    const body = new URLSearchParams({ email: address, csrfToken }).toString()
    const sent = await exchange(port, "POST", "/auth/signin/email", { host: "evil.example", cookie, "content-type": "application/x-www-form-urlencoded" }, body)
    expect(sent.status).toBe(400)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(demo.output.join("")).not.toContain(address)
  })

  it("answers forged Host and X-Forwarded-* headers without a 5xx, a stack or a foreign origin (T32)", async () => {
    await expectForgedHostsHarmless(demo.url, ["/auth/providers", "/auth/signin", "/", "/private"])
  })

  it("shows a generic error for a wrong password and stays signed out", async () => {
    const page = await browser.newPage()
    await page.goto(`${demo.url}/private`)
    await page.waitForURL(/\/auth\/signin\?callbackUrl=/)
    await page.getByLabel("Username").fill("demo")
    await page.locator("form", { has: page.getByLabel("Username") }).getByLabel("Password").fill("wrong")
    await page.getByRole("button", { name: /sign in with demo account/i }).click()
    await page.waitForURL(/error=CredentialsSignin/)
    const alert = await page.getByRole("alert").textContent()
    expect(alert).toBeTruthy()
    expect(alert!.toLowerCase()).not.toContain("password is wrong")
    await page.getByLabel("Username").fill("demo")
    await page.locator("form", { has: page.getByLabel("Username") }).getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: /sign in with demo account/i }).click()
    await page.waitForURL(`${demo.url}/private`)
    expect(await page.textContent("h1")).toBe("Private page")
    // The private page leads to the account center, and follows the browser's dark mode.
    expect(await page.getAttribute("#account-link", "href")).toBe("/auth/account")
    await page.emulateMedia({ colorScheme: "dark" })
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(17, 19, 24)")
  })
  it("lists the account's sessions in the account center, by device name, revokes one, then all others (database sessions on SQLite)", async () => {
    /** A separate browser profile with its own user agent, signed in with the demo account. */
    async function device(userAgent: string) {
      const context = await browser.newContext({ userAgent })
      const page = await context.newPage()
      await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
      await page.getByLabel("Username").fill("demo")
      await page.locator("form", { has: page.getByLabel("Username") }).getByLabel("Password").fill("portcullis")
      await page.getByRole("button", { name: /sign in with demo account/i }).click()
      await page.waitForURL(demo.url + "/")
      return { context, page }
    }
    const signedIn = async (page: import("playwright-core").Page) => {
      await page.goto(demo.url + "/")
      return !(await page.textContent("#status"))!.includes("not signed in")
    }
    // Other tests may have left sessions of the demo account: start from this one alone.
    const UA = {
      laptop: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0",
      phone: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1",
      tablet: "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36",
      desktop: "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0",
    }
    const revokeOthers = "#sessions form[action$='revoke-others'] button"
    const laptop = await device(UA.laptop)
    await laptop.page.goto(`${demo.url}/auth/account`)
    if (await laptop.page.locator(revokeOthers).count()) await laptop.page.click(revokeOthers)

    const phone = await device(UA.phone)
    // The demo's own sessions page is gone: its nav leads to the account center.
    await laptop.page.goto(`${demo.url}/`)
    await laptop.page.click("#nav-account")
    await laptop.page.waitForURL(`${demo.url}/auth/account`)
    const rows = laptop.page.locator("#sessions li")
    await expect.poll(() => rows.count()).toBe(2)
    const current = rows.filter({ hasText: "this device" })
    expect(await current.textContent()).toContain("Firefox on Windows")
    const phoneRow = rows.filter({ hasNotText: "this device" })
    expect(await phoneRow.textContent()).toContain("Safari on iPhone")
    // Device names, never the raw User-Agent.
    expect(await laptop.page.locator("#sessions").textContent()).not.toContain("Mozilla/5.0")
    mkdirSync(artifacts, { recursive: true })
    await laptop.page.screenshot({ path: join(artifacts, "express-sessions.png"), fullPage: true })

    await phoneRow.locator("button").click()
    await laptop.page.waitForURL(/\/auth\/account\?notice=revoked/)
    expect(await laptop.page.getByRole("status").textContent()).toContain("The session was signed out")
    await expect.poll(() => rows.count()).toBe(1)
    expect(await signedIn(phone.page)).toBe(false)
    expect(await signedIn(laptop.page)).toBe(true)

    const tablet = await device(UA.tablet)
    const desktop = await device(UA.desktop)
    await laptop.page.goto(`${demo.url}/auth/account`)
    await expect.poll(() => rows.count()).toBe(3)
    expect(await laptop.page.locator("#sessions").textContent()).toContain("Edge on macOS")
    await laptop.page.click(revokeOthers)
    await laptop.page.waitForURL(/\/auth\/account\?notice=revokedOthers&count=2/)
    expect(await signedIn(tablet.page)).toBe(false)
    expect(await signedIn(desktop.page)).toBe(false)
    expect(await signedIn(laptop.page)).toBe(true)
    for (const d of [laptop, phone, tablet, desktop]) await d.context.close()
  })

  it("a revoke posted from another site, or without the form's token, revokes nothing (403)", async () => {
    const contexts = await Promise.all([browser.newContext({ userAgent: "Victim-Laptop/1.0" }), browser.newContext({ userAgent: "Victim-Phone/1.0" })])
    const [laptop, phone] = await Promise.all(contexts.map((c) => c.newPage()))
    for (const page of [laptop!, phone!]) {
      await page.goto(`${demo.url}/auth/signin?callbackUrl=%2F`)
      await page.getByLabel("Username").fill("demo")
      await page.locator("form", { has: page.getByLabel("Username") }).getByLabel("Password").fill("portcullis")
      await page.getByRole("button", { name: /sign in with demo account/i }).click()
      await page.waitForURL(demo.url + "/")
    }
    await laptop!.goto(`${demo.url}/auth/account`)
    // The one session of the list the laptop can revoke: the phone's.
    const action = await laptop!.locator("#sessions li form").first().getAttribute("action")
    expect(action).toMatch(/\/auth\/account\/sessions\/[^/]+\/revoke$/)
    const csrfToken = await laptop!.locator('input[name="csrfToken"]').first().inputValue()
    // The laptop's own cookies ride along (as a cross-site form post's would, SameSite aside).
    const request = laptop!.context().request
    const crossSite = await request.post(action!, { form: { csrfToken }, headers: { origin: "https://evil.example" }, maxRedirects: 0 })
    expect(crossSite.status()).toBe(403)
    const tokenless = await request.post(action!, { form: {}, headers: { origin: demo.url }, maxRedirects: 0 })
    expect(tokenless.status()).toBe(403)
    await phone!.goto(demo.url + "/")
    expect(await phone!.textContent("#status")).not.toContain("not signed in")
    for (const c of contexts) await c.close()
  })
})

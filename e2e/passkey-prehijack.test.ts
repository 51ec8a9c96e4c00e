import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { artifacts, browserAvailable, expectSignedOut, launchChromium, openEmailedLink, startExample, continueWithEmail } from "./support.js"

/**
 * T67 in Chromium (issue 12, item 3), against the Express demo as a real process (SQLite,
 * database sessions, passkeys and email links; its mail catcher prints each link). The
 * attacker's browser has a virtual platform authenticator and registers a passkey under the
 * victim's address; the victim, in another browser context, signs in by the emailed link;
 * the attacker's session and passkey must then be dead.
 */
const enabled = browserAvailable()

/** A browser context with a platform passkey authenticator that always verifies the user. */
async function withVirtualAuthenticator(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send("WebAuthn.enable")
  await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  return { context, page }
}

/** The demo's sign-in page has several forms with an email field; each is picked by its form. */
async function passkeyButton(page: Page, origin: string, email: string, button: "Sign in with Passkey" | "Sign up with Passkey" = "Sign in with Passkey") {
  await page.goto(`${origin}/auth/signin`)
  await continueWithEmail(page, email)
  const form = page.locator('form[data-webauthn-provider="passkey"]')
  await form.getByRole("button", { name: button }).click()
}

async function emailButton(page: Page, origin: string, email: string) {
  await page.goto(`${origin}/auth/signin`)
  await continueWithEmail(page, email)
  const form = page.locator('form[action$="/auth/signin/email"]')
  await form.getByRole("button", { name: /email me a sign-in link/i }).click()
}

describe.runIf(enabled)("a passkey registered under someone else's address, in Chromium (T67)", () => {
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

  /** The link the demo's mail catcher printed for `email`. */
  async function printedLink(email: string): Promise<string> {
    const find = () => new RegExp(`sign-in link for ${email.replace(/[.+]/g, "\\$&")}: (\\S+)`).exec(demo.output.join(""))?.[1]
    await expect.poll(find, { timeout: 10_000 }).toBeTruthy()
    return find()!
  }

  it("the owner's email link signs the attacker out and their passkey is refused", async () => {
    const email = "victim@example.com"

    // 1. The attacker signs up with a passkey under the victim's address and is signed in.
    const attacker = await withVirtualAuthenticator(browser)
    await passkeyButton(attacker.page, demo.url, email, "Sign up with Passkey")
    await attacker.page.waitForURL(`${demo.url}/`)
    expect(await attacker.page.textContent("#user-email")).toBe(email)

    // 2. The victim, in their own browser, asks for a link and opens it.
    const victimContext = await browser.newContext()
    const victim = await victimContext.newPage()
    await emailButton(victim, demo.url, email)
    await victim.waitForURL(/\/auth\/verify-request/)
    await openEmailedLink(victim, await printedLink(email))
    await victim.waitForURL(`${demo.url}/`)
    expect(await victim.textContent("#user-email")).toBe(email)

    // 3. The attacker's session page now shows them signed out; the session endpoint
    // answers null and clears the dead cookie (the demo's page only reads the session).
    await attacker.page.goto(demo.url)
    expect(await attacker.page.textContent("#status")).toContain("not signed in")
    expect(await attacker.page.evaluate(() => fetch("/auth/session").then((r) => r.json()))).toBeNull()
    await expectSignedOut(attacker.page, "#status", "not signed in")

    // 4. The attacker's passkey (still on the device) is refused.
    await passkeyButton(attacker.page, demo.url, email)
    await attacker.page.waitForURL(/\/auth\/signin\?error=WebAuthnVerificationError/)
    expect(await attacker.page.getByRole("alert").first().textContent()).toContain("could not verify your passkey")
    mkdirSync(artifacts, { recursive: true })
    await attacker.page.screenshot({ path: join(artifacts, "passkey-prehijack-refused.png"), fullPage: true })
    await attacker.page.goto(demo.url)
    await expectSignedOut(attacker.page, "#status", "not signed in")

    // 5. The victim stays signed in.
    await victim.reload()
    expect(await victim.textContent("#user-email")).toBe(email)
    await attacker.context.close()
    await victimContext.close()
  })
})

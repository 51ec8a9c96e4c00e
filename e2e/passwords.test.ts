import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, Page } from "playwright-core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "@portcullis/express"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { startDemoSmtp, type DemoSmtp } from "@portcullis/example-kit/smtp"
import { artifacts, browserAvailable, launchChromium, continueWithEmail } from "./support.js"

const enabled = browserAvailable()

/**
 * Password accounts in Chromium (issue 20, part 2): an Express app with the password
 * provider on SQLite and database sessions, the demo SMTP server as the inbox. The person
 * creates an account on the built-in page, verifies it by the mailed link, signs in, then
 * resets the password from another browser — and the first browser's session is gone.
 */
describe.runIf(enabled)("password accounts in Chromium", () => {
  let browser: Browser
  let smtp: DemoSmtp
  let database: TestDatabase
  let origin: string
  const servers: Server[] = []

  beforeAll(async () => {
    smtp = await startDemoSmtp({ port: 0, log: () => {} })
    database = await openTestDatabase("sqlite")
    browser = await launchChromium()
    const config: ExpressAuthConfig = {
      secret: "an-e2e-secret-with-at-least-32-characters",
      trustHost: true,
      adapter: database.adapter,
      session: { strategy: "database" },
      providers: [Password({ mailer: Nodemailer({ server: smtp.url, from: "Portcullis E2E <auth@example.com>" }) })],
    }
    const app = express()
    app.use("/auth", ExpressAuth(config))
    app.get("/", async (req, res) => {
      const session = await getSession(req, config)
      const email = session?.user?.email ?? ""
      res.type("html").send(session ? `<p id="status">signed in as <span id="email">${email.replace(/[<>&"]/g, "")}</span></p>` : `<p id="status">not signed in</p>`)
    })
    const server = createServer(app)
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await browser?.close()
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))))
    await smtp?.close()
    await database?.close()
  })

  async function linkFor(to: string, path: string): Promise<string> {
    await expect.poll(() => smtp.lastLink(to)?.includes(path), { timeout: 10_000 }).toBe(true)
    return smtp.lastLink(to)!
  }

  async function signIn(page: Page, email: string, password: string) {
    await page.goto(`${origin}/auth/signin`)
    // Identifier-first: the address once, then the password among its methods.
    await continueWithEmail(page, email)
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: /sign in with password/i }).click()
  }

  it("signs up, verifies by the mailed link, signs in, resets from another browser, and the old session is gone", async () => {
    const email = "grace.hopper@example.com"
    const first = "cobol compiler moth logbook"
    const second = "nanosecond wire length lecture"
    const page = await browser.newPage()

    await page.goto(`${origin}/auth/signin`)
    await continueWithEmail(page, email)
    await page.getByRole("link", { name: "Create account" }).click()
    await page.waitForURL(/\/auth\/password\/signup/)
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill("password1")
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForURL(/error=PasswordTooWeak/)
    expect(await page.textContent("[role=alert]")).toContain("too easy to guess")
    await page.getByLabel("Email").fill(email)
    await page.getByLabel("Password").fill(first)
    await page.getByRole("button", { name: "Create account" }).click()
    await page.waitForURL(/\/auth\/password\/sent/)
    expect(await page.textContent("h1")).toBe("Check your email")
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "password-sent.png"), fullPage: true })

    // Not verified yet: refused like a wrong password.
    await signIn(page, email, first)
    await page.waitForURL(/error=CredentialsSignin/)

    // The link opens a confirm page; typing the password chosen at sign-up keeps it.
    await page.goto(await linkFor(email, "/auth/password/verify"))
    expect(await page.textContent("h1")).toBe("Confirm your email address")
    await page.getByLabel("Password chosen at sign-up").fill(first)
    await page.getByRole("button", { name: "Confirm" }).click()
    await page.waitForURL(/\/auth\/password\/verified/)
    expect(await page.textContent("h1")).toBe("Email address verified")

    await signIn(page, email, first)
    await page.waitForURL(`${origin}/`)
    expect(await page.textContent("#email")).toBe(email)

    // Another browser asks for a reset and sets a new password.
    const other = await browser.newContext()
    const elsewhere = await other.newPage()
    await elsewhere.goto(`${origin}/auth/signin`)
    await continueWithEmail(elsewhere, email)
    await elsewhere.getByRole("link", { name: "Forgot password?" }).click()
    await elsewhere.getByLabel("Email").fill(email)
    await elsewhere.getByRole("button", { name: "Send reset link" }).click()
    await elsewhere.waitForURL(/\/auth\/password\/sent/)
    await elsewhere.goto(await linkFor(email, "/auth/password/reset"))
    await elsewhere.getByLabel("New password").fill(second)
    await elsewhere.getByRole("button", { name: "Save new password" }).click()
    await elsewhere.waitForURL(/\/auth\/password\/done/)
    expect(await elsewhere.textContent("h1")).toBe("Password changed")
    await elsewhere.screenshot({ path: join(artifacts, "password-reset-done.png"), fullPage: true })
    await other.close()

    // The first browser's session ended with the reset; the old password no longer works.
    await page.goto(`${origin}/`)
    expect(await page.textContent("#status")).toBe("not signed in")
    await signIn(page, email, first)
    await page.waitForURL(/error=CredentialsSignin/)
    await signIn(page, email, second)
    await page.waitForURL(`${origin}/`)
    expect(await page.textContent("#email")).toBe(email)
  })

  it("shows the sign-up page in German and Japanese by Accept-Language", async () => {
    for (const [locale, heading] of [["de-DE", "Konto erstellen"], ["ja-JP", "アカウントを作成"]] as const) {
      const context = await browser.newContext({ locale })
      const page = await context.newPage()
      await page.goto(`${origin}/auth/password/signup`)
      expect(await page.textContent("h1")).toBe(heading)
      await context.close()
    }
  })
})

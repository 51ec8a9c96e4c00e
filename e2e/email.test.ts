import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import express from "express"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser } from "playwright-core"
import Email from "@portcullis/core/providers/email"
import { ExpressAuth, getSession, type ExpressAuthConfig } from "@portcullis/express"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { startDemoSmtp, type DemoSmtp } from "@portcullis/example-kit/smtp"
import { artifacts, browserAvailable, launchChromium, continueWithEmail } from "./support.js"

const enabled = browserAvailable()

/**
 * Email sign-in in Chromium (issue 5): a small Express app with the Email provider on
 * SQLite, the demo SMTP server as the inbox. The person types their address on the
 * built-in sign-in page, the link is taken from the SMTP server, opened in the browser,
 * and the app shows the session.
 */
describe.runIf(enabled)("email sign-in in Chromium", () => {
  let browser: Browser
  let smtp: DemoSmtp
  const printed: string[] = []
  let database: TestDatabase
  const servers: Server[] = []

  beforeAll(async () => {
    smtp = await startDemoSmtp({ port: 0, log: (line) => printed.push(line) })
    database = await openTestDatabase("sqlite")
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))))
    await smtp?.close()
    await database?.close()
  })

  /** Starts the app: a home page that shows the session, and Portcullis under /auth. */
  async function startApp(options: { interstitial?: boolean } = {}): Promise<string> {
    const config: ExpressAuthConfig = {
      secret: "an-e2e-secret-with-at-least-32-characters",
      trustHost: true,
      adapter: database.adapter,
      providers: [Email({ server: smtp.url, from: "Portcullis E2E <auth@example.com>", maxAge: 10 * 60, interstitial: options.interstitial })],
      theme: { brandColor: "#4f46e5" },
    }
    const app = express()
    app.use("/auth", ExpressAuth(config))
    app.get("/", async (req, res) => {
      const session = await getSession(req, config)
      const email = session?.user?.email ?? ""
      res.type("html").send(session
        ? `<p id="status">signed in as <span id="email">${email.replace(/[<>&"]/g, "")}</span></p>`
        : `<p id="status">not signed in</p>`)
    })
    const server = createServer(app)
    servers.push(server)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }

  async function linkFor(to: string): Promise<string> {
    await expect.poll(() => smtp.lastLink(to), { timeout: 10_000 }).toBeTruthy()
    return smtp.lastLink(to)!
  }

  it("with interstitial: false (the Auth.js opt-out): types the address, opens the mailed link, and is signed in", async () => {
    const origin = await startApp({ interstitial: false })
    const page = await browser.newPage()
    await page.goto(`${origin}/auth/signin`)
    // Identifier-first: the address once, then the emailed link.
    await continueWithEmail(page, "Ada.Lovelace@Example.com")
    await page.getByRole("button", { name: /email me a sign-in link/i }).click()
    await page.waitForURL(/\/auth\/verify-request\?provider=email&type=email/)
    expect(await page.textContent("h1")).toBe("Check your email")
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "email-verify-request.png"), fullPage: true })

    const link = await linkFor("ada.lovelace@example.com")
    expect(link.startsWith(`${origin}/auth/callback/email?`)).toBe(true)
    // The link, then the mail's subject (JSON-quoted).
    expect(printed.find((line) => line.startsWith(`[demo-smtp] sign-in link for ada.lovelace@example.com: ${link} `))).toMatch(/ "Sign in to [^"]+"$/)

    await page.goto(link)
    await page.waitForURL(`${origin}/`)
    expect(await page.textContent("#email")).toBe("ada.lovelace@example.com")
    const cookie = (await page.context().cookies()).find((c) => c.name === "authjs.session-token")!
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" })

    // The same link in another browser context: used once, so it shows the error page.
    const other = await browser.newContext()
    const second = await other.newPage()
    const response = await second.goto(link)
    expect(second.url()).toContain("/auth/error?error=Verification")
    expect(response!.status()).toBe(403)
    expect(await second.textContent("h1")).toBe("Link no longer valid")
    await other.close()
  })

  it("by default, opening the link signs in only after pressing the button", async () => {
    const origin = await startApp()
    const page = await browser.newPage()
    await page.goto(`${origin}/auth/signin`)
    await continueWithEmail(page, "grace@example.com")
    await page.getByRole("button", { name: /email me a sign-in link/i }).click()
    await page.waitForURL(/\/auth\/verify-request/)
    const link = await linkFor("grace@example.com")

    // A scanner fetching the link first does not use it up.
    const scanned = await fetch(link)
    expect(scanned.status).toBe(200)

    await page.goto(link)
    expect(await page.textContent("h1")).toContain("Sign in to")
    await page.screenshot({ path: join(artifacts, "email-interstitial.png"), fullPage: true })
    await page.getByRole("button", { name: /^sign in$/i }).click()
    await page.waitForURL(`${origin}/`)
    expect(await page.textContent("#email")).toBe("grace@example.com")
  })
})

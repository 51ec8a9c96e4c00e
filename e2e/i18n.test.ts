import { mkdirSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import express from "express"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"
import { ExpressAuth } from "@portcullis/express"
import { artifacts, browserAvailable, launchChromium } from "./support.js"

/**
 * Issue 20, part 4, in a real browser: the built-in sign-in page in the browser's language
 * (Chromium sends `Accept-Language` from the context's locale), a failed sign-in explained
 * in that language, and Arabic laid out right to left.
 */
const enabled = browserAvailable()

describe.runIf(enabled)("the sign-in page in the browser's language", () => {
  let server: Server
  let origin: string
  let browser: Browser

  beforeAll(async () => {
    const app = express()
    app.use(
      "/auth",
      ExpressAuth({
        secret: "a-test-secret-with-at-least-32-characters",
        trustHost: true,
        providers: [
          Credentials({
            credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
            authorize: ({ username, password }) => (username === "ada" && password === "right" ? { id: "1", name: "Ada" } : null),
          }),
        ],
        logger: { warn: () => {}, error: () => {} },
      }),
    )
    server = createServer(app)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://localhost:${(server.address() as AddressInfo).port}`
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await new Promise((resolve) => server?.close(resolve))
  })

  for (const [locale, heading, button, failure] of [
    ["de-DE", "Anmelden", "Mit Credentials anmelden", "Die Anmeldung ist fehlgeschlagen."],
    ["ja-JP", "サインイン", "Credentials でサインイン", "サインインできませんでした。"],
  ] as const) {
    it(`speaks ${locale}, and explains a wrong password in it`, async () => {
      const context = await browser.newContext({ locale })
      const page = await context.newPage()
      await page.goto(`${origin}/auth/signin`)
      expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(heading)
      expect(await page.locator("html").getAttribute("lang")).toBe(locale.slice(0, 2))
      await page.getByLabel("Username").fill("ada")
      await page.getByLabel("Password").fill("wrong")
      await page.getByRole("button", { name: button }).click()
      await page.waitForURL(/error=CredentialsSignin/)
      expect(await page.getByRole("alert").textContent()).toContain(failure)
      mkdirSync(artifacts, { recursive: true })
      await page.screenshot({ path: join(artifacts, `signin-${locale}.png`), fullPage: true })
      await context.close()
    })
  }

  it("lays Arabic out right to left", async () => {
    const context = await browser.newContext({ locale: "ar-EG" })
    const page = await context.newPage()
    await page.goto(`${origin}/auth/signin`)
    expect(await page.locator("html").getAttribute("dir")).toBe("rtl")
    expect(await page.locator("h1").evaluate((el) => getComputedStyle(el).direction)).toBe("rtl")
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "signin-ar-EG.png"), fullPage: true })
    await context.close()
  })
})

import { mkdirSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import express from "express"
import pg from "pg"
import type { Browser, BrowserContext, CDPSession, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import Passkey from "@portcullis/core/providers/passkey"
import { ExpressAuth } from "@portcullis/express"
import { postgresService, serviceAvailable } from "@portcullis/adapter-test"
import { openTestDatabase, type TestDatabase } from "@portcullis/sql-adapter/testing"
import { artifacts, browserAvailable, launchChromium, continueWithEmail } from "./support.js"

/**
 * Passkeys in Chromium (issue 6): a CDP virtual authenticator (CTAP2, internal, resident
 * keys, user verification) against a real Express server with the built-in sign-in page,
 * on SQLite and on PostgreSQL. The site is http://localhost, a secure context for WebAuthn.
 */
const enabled = browserAvailable()

/**
 * Express with the auth routes at /auth and a home page; served on http://localhost.
 * Chromium's virtual authenticator answers a conditional (autofill) request at once, as if
 * the user picked the passkey, so button-driven tests run on a site without it.
 */
async function startSite(backend: TestDatabase, conditionalUI: boolean): Promise<{ origin: string; close(): Promise<void> }> {
  const app = express()
  app.use(
    "/auth",
    ExpressAuth({
      secret: "a-test-secret-with-at-least-32-characters",
      trustHost: true,
      adapter: backend.adapter,
      experimental: { enableWebAuthn: true },
      providers: [Passkey({ enableConditionalUI: conditionalUI })],
      logger: { warn: () => {}, error: () => {} },
    }),
  )
  app.get("/", (_req, res) => void res.type("html").send("<!doctype html><title>Home</title><h1>Home</h1>"))
  const server: Server = createServer(app)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return { origin: `http://localhost:${port}`, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

/** A browser context with a platform passkey authenticator that always verifies the user. */
async function withVirtualAuthenticator(browser: Browser): Promise<{ context: BrowserContext; page: Page; cdp: CDPSession; authenticatorId: string }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  const cdp = await context.newCDPSession(page)
  await cdp.send("WebAuthn.enable")
  const { authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: { protocol: "ctap2", transport: "internal", hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  })
  return { context, page, cdp, authenticatorId }
}

async function session(page: Page): Promise<any> {
  return page.evaluate(() => fetch("/auth/session").then((r) => r.json()))
}

/** Types `email` into the sign-in page's passkey form and presses its sign-in (default) or sign-up button. */
async function passkeyButton(page: Page, origin: string, email: string, button: "Sign in with Passkey" | "Sign up with Passkey" = "Sign in with Passkey") {
  await page.goto(`${origin}/auth/signin`)
  await continueWithEmail(page, email)
  await page.getByRole("button", { name: button }).click()
}

/** A new account: the form's sign-up button (the server never picks sign-up from the address). */
const passkeySignUp = (page: Page, origin: string, email: string) => passkeyButton(page, origin, email, "Sign up with Passkey")

const service = postgresService()
const pgGate = await serviceAvailable(service, async () => {
  const client = new pg.Client({ connectionString: service.url, connectionTimeoutMillis: 3_000 })
  await client.connect()
  await client.end()
})

function passkeySuite(label: string, open: () => Promise<TestDatabase>) {
  describe(`passkeys in Chromium on ${label}`, () => {
    let backend: TestDatabase
    let site: Awaited<ReturnType<typeof startSite>>
    let autofillSite: Awaited<ReturnType<typeof startSite>>
    let browser: Browser
    beforeAll(async () => {
      backend = await open()
      site = await startSite(backend, false)
      autofillSite = await startSite(backend, true)
      browser = await launchChromium()
    })
    afterAll(async () => {
      await browser?.close()
      await site?.close()
      await autofillSite?.close()
      await backend?.close()
    })

    it("registers a passkey for a new email, signs out, and signs back in with it", async () => {
      const { context, page, cdp, authenticatorId } = await withVirtualAuthenticator(browser)
      const email = `ada-${label.toLowerCase()}@example.com`

      await passkeySignUp(page, site.origin, email)
      await page.waitForURL(`${site.origin}/`)
      expect((await session(page)).user).toMatchObject({ email })

      // The stored authenticator is the one the virtual device holds, in Auth.js's encoding.
      const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId })
      expect(credentials).toHaveLength(1)
      const held = credentials[0]!
      expect(held.isResidentCredential).toBe(true)
      const t = backend.tables
      const user = await backend.db.selectFrom(t.users).selectAll().where("email", "=", email).executeTakeFirstOrThrow()
      const row = await backend.db.selectFrom(t.authenticators).selectAll().where("userId", "=", user.id).executeTakeFirstOrThrow()
      expect(row.credentialID).toBe(Buffer.from(held.credentialId, "base64").toString("base64"))
      expect(row.providerAccountId).toBe(row.credentialID)
      expect(row.credentialPublicKey).toMatch(/^[A-Za-z0-9+/]+=*$/)
      expect(row.transports).toBe("internal")
      expect(row.credentialDeviceType).toBe("singleDevice")
      expect(Boolean(row.credentialBackedUp)).toBe(false)
      const account = await backend.db.selectFrom(t.accounts).selectAll().where("providerAccountId", "=", row.credentialID).executeTakeFirstOrThrow()
      expect(account).toMatchObject({ provider: "passkey", type: "webauthn", userId: user.id })

      await page.goto(`${site.origin}/auth/signout`)
      await page.getByRole("button", { name: /sign out/i }).click()
      await page.waitForURL(`${site.origin}/`)
      expect(await session(page)).toBeNull()

      await passkeyButton(page, site.origin, email)
      await page.waitForURL(`${site.origin}/`)
      expect((await session(page)).user).toMatchObject({ email })
      // The virtual authenticator counts signatures: the stored counter followed it.
      const after = await backend.db.selectFrom(t.authenticators).select("counter").where("credentialID", "=", row.credentialID).executeTakeFirstOrThrow()
      const { credentials: now } = await cdp.send("WebAuthn.getCredentials", { authenticatorId })
      expect(Number(after.counter)).toBe(now[0]!.signCount)
      expect(Number(after.counter)).toBeGreaterThan(Number(row.counter))
      await context.close()
    })

    it("signs in through the email field's autofill (conditional UI) without a click", async () => {
      const { context, page } = await withVirtualAuthenticator(browser)
      const email = `grace-${label.toLowerCase()}@example.com`
      await passkeySignUp(page, autofillSite.origin, email)
      await page.waitForURL(`${autofillSite.origin}/`)
      await page.goto(`${autofillSite.origin}/auth/signout`)
      await page.getByRole("button", { name: /sign out/i }).click()
      await page.waitForURL(`${autofillSite.origin}/`)
      expect(await session(page)).toBeNull()

      await page.goto(`${autofillSite.origin}/auth/signin`)
      await page.waitForURL(`${autofillSite.origin}/`)
      expect((await session(page)).user).toMatchObject({ email })
      await context.close()
    })

    it("posts once when the autofill options arrive after the button already registered a passkey", async () => {
      // The flake CI once hit: the page's autofill request was still fetching its options when
      // the button registered a passkey; the device then answered the late autofill request
      // with the new passkey and a second form post aborted the first navigation.
      const { context, page } = await withVirtualAuthenticator(browser)
      const email = `late-${label.toLowerCase()}@example.com`
      const posts: string[] = []
      let release!: () => void
      const registered = new Promise<void>((resolve) => (release = resolve))
      page.on("request", (request) => {
        if (request.method() === "POST" && new URL(request.url()).pathname === "/auth/callback/passkey") {
          posts.push(request.url())
          release()
        }
      })
      await page.route(
        (url) => url.pathname.startsWith("/auth/webauthn-options") && url.searchParams.get("action") === "authenticate",
        async (route) => {
          await registered
          await route.continue().catch(() => {}) // the page may have left already
        },
      )
      await passkeySignUp(page, autofillSite.origin, email)
      await page.waitForURL(`${autofillSite.origin}/`)
      expect((await session(page)).user).toMatchObject({ email })
      // Give a second post every chance to show up: the held options request, answered now,
      // would have led to one before the home page's own fetch finishes.
      await page.unrouteAll({ behavior: "wait" })
      expect((await session(page)).user).toMatchObject({ email })
      expect(posts).toHaveLength(1)
      await context.close()
    })

    it("shows the passkey error on the sign-in page for a credential the server does not know", async () => {
      const { context, page } = await withVirtualAuthenticator(browser)
      const email = `eve-${label.toLowerCase()}@example.com`
      await passkeySignUp(page, site.origin, email)
      await page.waitForURL(`${site.origin}/`)
      // The server forgets the credential; the device still offers it.
      const t = backend.tables
      const user = await backend.db.selectFrom(t.users).select("id").where("email", "=", email).executeTakeFirstOrThrow()
      await backend.db.deleteFrom(t.authenticators).where("userId", "=", user.id).execute()
      await context.clearCookies()

      await passkeyButton(page, site.origin, email)
      await page.waitForURL(/\/auth\/signin\?error=WebAuthnVerificationError/)
      expect(await page.getByRole("alert").first().textContent()).toContain("could not verify your passkey")
      mkdirSync(artifacts, { recursive: true })
      await page.screenshot({ path: join(artifacts, `passkey-error-${label.toLowerCase()}.png`), fullPage: true })
      expect(await session(page)).toBeNull()
      await context.close()
    })
  })
}

describe.runIf(enabled)("passkeys", () => {
  passkeySuite("SQLite", () => openTestDatabase("sqlite"))
  pgGate.describe("PostgreSQL", () => passkeySuite("PostgreSQL", () => openTestDatabase("postgres", { url: service.url })))
})

/**
 * Issue #16: an Auth.js SvelteKit app (SvelteKitAuth in src/auth.ts, the handle hook, the
 * <SignIn>/<SignOut> components filled through slots, form actions, event.locals.auth() in
 * load functions) moved to Portcullis by changing its import specifiers only, installed from
 * `npm pack` tarballs outside the workspace, checked with svelte-check, built with
 * `vite build` (adapter-node) and driven in Chromium against a local OpenID provider over http.
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { startDemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { browserAvailable, expectSignedOut, freePort, launchChromium } from "../support.js"
import { migrateFixture, migrationProblem, npmInstall, packPortcullis, newContext, printServerOutputOnFailure, run, seconds, signInAtIssuer, startServer, type AppServer, type MigratedApp } from "./migrate.js"

const enabled = browserAvailable()

describe.runIf(enabled)("an Auth.js SvelteKit app moved to Portcullis by its imports", () => {
  let app: MigratedApp
  let migration: unknown
  let server: AppServer | undefined
  let oidc: { issuer: string; close(): Promise<void> } | undefined
  let browser: Browser | undefined
  let check = ""

  beforeAll(async () => {
    let start = performance.now()
    app = migrateFixture("sveltekit", await packPortcullis())
    migration = migrationProblem(app)
    console.log(`[migration/sveltekit] packed and migrated in ${seconds(start)} (${app.dir})`)
    start = performance.now()
    await npmInstall(app.dir)
    console.log(`[migration/sveltekit] npm install: ${seconds(start)}`)
    start = performance.now()
    await run(process.execPath, [join(app.dir, "node_modules", "vite", "bin", "vite.js"), "build", "--logLevel", "warn"], { cwd: app.dir, timeout: 300_000 })
    console.log(`[migration/sveltekit] vite build: ${seconds(start)}`)
    start = performance.now()
    // svelte-check exits non-zero on errors; its machine output says how many either way.
    const svelteCheck = join(app.dir, "node_modules", "svelte-check", "bin", "svelte-check")
    check = await run(process.execPath, [svelteCheck, "--tsconfig", "./tsconfig.json", "--output", "machine"], { cwd: app.dir, timeout: 180_000 }).catch((error: Error) => error.message)
    console.log(`[migration/sveltekit] svelte-check: ${seconds(start)}`)

    const port = await freePort()
    const clientSecret = randomBytes(16).toString("hex")
    oidc = await startDemoOidcProvider({ port: 0, clientId: "sveltekit-app", clientSecret, redirectUris: [`http://127.0.0.1:${port}/auth/callback/local-oidc`] })
    // adapter-node's server, as `npm start` runs it.
    server = await startServer(process.execPath, ["build"], {
      cwd: app.dir,
      ready: /Listening on/,
      url: `http://127.0.0.1:${port}`,
      env: {
        HOST: "127.0.0.1",
        PORT: String(port),
        ORIGIN: `http://127.0.0.1:${port}`,
        AUTH_SECRET: randomBytes(32).toString("hex"),
        AUTH_URL: `http://127.0.0.1:${port}/auth`,
        OIDC_ISSUER: oidc.issuer,
        OIDC_CLIENT_ID: "sveltekit-app",
        OIDC_CLIENT_SECRET: clientSecret,
      },
    })
    browser = await launchChromium()
  }, 900_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await oidc?.close()
    app?.remove()
  })

  printServerOutputOnFailure(() => server)

  const url = (path: string) => `${server!.url}${path}`

  async function signInWithPassword(context: BrowserContext): Promise<Page> {
    const page = await context.newPage()
    await page.goto(url("/"))
    const form = page.locator("form:has(#sign-in-credentials)")
    expect(await form.count(), "<SignIn> rendered its submitButton slot").toBe(1)
    await form.locator('input[name="username"]').fill("carol")
    await form.locator('input[name="password"]').fill("sveltekit")
    await page.click("#sign-in-credentials")
    await expect.poll(() => page.textContent("#status")).toBe("Signed in as Carol <carol@example.com>")
    return page
  }

  it("changed nothing but import specifiers and the Auth.js dependencies", () => {
    if (migration) throw migration
    expect(app.changed.sort()).toEqual(["package.json", "src/auth.ts", "src/routes/+page.svelte"])
  })

  it("passes svelte-check with 0 errors (event.locals.auth() typed, the components' slots accepted)", () => {
    const completed = /COMPLETED \d+ FILES (\d+) ERRORS/.exec(check)
    expect(completed, check).not.toBeNull()
    expect(Number(completed![1]), check).toBe(0)
  })

  it("renders what the slots give the sign-in and sign-out buttons (class and text)", async () => {
    const page = await (await newContext(browser!)).newPage()
    await page.goto(url("/"))
    const credentials = page.locator("form button[type=submit] > div#sign-in-credentials")
    expect(await credentials.count(), `the submitButton slot in <SignIn>'s button:\n${await page.innerHTML("body")}`).toBe(1)
    expect(await credentials.getAttribute("class")).toContain("button button-primary")
    expect(await credentials.textContent()).toBe("Sign in with password")
    // The credentials slot's inputs are inside the same form.
    expect(await page.locator('form:has(#sign-in-credentials) input[name="password"][type="password"]').count()).toBe(1)
    expect(await page.locator("form button[type=submit] > div#sign-in-oidc").textContent()).toBe("Sign in with Local OIDC")
    await page.context().close()
  })

  it("sends a signed-out visitor of the protected page (a load reading event.locals.auth()) to sign in", async () => {
    const page = await (await newContext(browser!)).newPage()
    await page.goto(url("/protected"))
    await page.waitForURL(/\/auth\/signin\?/)
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe("/protected")
    await page.context().close()
  })

  it("signs in with credentials through the slotted <SignIn> and shows the session in load functions", async () => {
    const context = await newContext(browser!)
    const page = await signInWithPassword(context)
    await page.goto(url("/protected"))
    expect(await page.textContent("#protected")).toBe("Protected content for carol@example.com")
    await context.close()
  })

  it("signs out through the slotted <SignOut>", async () => {
    const context = await newContext(browser!)
    const page = await signInWithPassword(context)
    const signOut = page.locator("form button[type=submit] > div#sign-out")
    expect(await signOut.getAttribute("class")).toContain("button button-secondary")
    await signOut.click()
    await expect.poll(() => page.textContent("#status")).toBe("Not signed in")
    await expectSignedOut(page)
    await context.close()
  })

  it("signs in with a generic OIDC provider against a local issuer over http", async () => {
    const context = await newContext(browser!)
    const page = await context.newPage()
    await page.goto(url("/"))
    await signInAtIssuer(page, "#sign-in-oidc", oidc!.issuer, url("/"), server!)
    await expect.poll(() => page.textContent("#status")).toBe("Signed in as Demo User <demo@portcullis.dev>")
    await context.close()
  })
})

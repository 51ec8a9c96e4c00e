/**
 * Issue #16: an Auth.js Express app (ExpressAuth mounted at /auth, getSession middleware, a
 * protected page and API) moved to Portcullis by changing its import specifiers only,
 * installed from `npm pack` tarballs outside the workspace, type-checked with `tsc`, and
 * driven in Chromium through the built-in pages against a local OpenID provider over http.
 */
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { startDemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { browserAvailable, expectSignedOut, freePort, launchChromium } from "../support.js"
import { expectOnlyKnownTypeErrors, migrateFixture, migrationProblem, npmInstall, packPortcullis, newContext, printServerOutputOnFailure, run, seconds, signInAtIssuer, startServer, type AppServer, type MigratedApp } from "./migrate.js"

const enabled = browserAvailable()

describe.runIf(enabled)("an Auth.js Express app moved to Portcullis by its imports", () => {
  let app: MigratedApp
  let migration: unknown
  let server: AppServer | undefined
  let oidc: { issuer: string; close(): Promise<void> } | undefined
  let browser: Browser | undefined

  beforeAll(async () => {
    let start = performance.now()
    app = migrateFixture("express", await packPortcullis())
    migration = migrationProblem(app)
    console.log(`[migration/express] packed and migrated in ${seconds(start)} (${app.dir})`)
    start = performance.now()
    await npmInstall(app.dir)
    console.log(`[migration/express] npm install: ${seconds(start)}`)

    const port = await freePort()
    const clientSecret = randomBytes(16).toString("hex")
    oidc = await startDemoOidcProvider({ port: 0, clientId: "express-app", clientSecret, redirectUris: [`http://127.0.0.1:${port}/auth/callback/local-oidc`] })
    // Started as its package.json says (`node src/server.ts`: Node strips the types).
    server = await startServer(process.execPath, ["src/server.ts"], {
      cwd: app.dir,
      ready: /listening on http/,
      url: `http://127.0.0.1:${port}`,
      env: {
        PORT: String(port),
        AUTH_SECRET: randomBytes(32).toString("hex"),
        AUTH_URL: `http://127.0.0.1:${port}/auth`,
        OIDC_ISSUER: oidc.issuer,
        OIDC_CLIENT_ID: "express-app",
        OIDC_CLIENT_SECRET: clientSecret,
      },
    })
    browser = await launchChromium()
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await oidc?.close()
    app?.remove()
  })

  printServerOutputOnFailure(() => server)

  const url = (path: string) => `${server!.url}${path}`

  async function signInWithPassword(context: BrowserContext, path = "/auth/signin"): Promise<Page> {
    const page = await context.newPage()
    await page.goto(url(path))
    const form = page.locator('form[action$="/auth/callback/credentials"]')
    await form.locator('input[name="username"]').fill("bob")
    await form.locator('input[name="password"]').fill("builder")
    await form.locator('button[type="submit"]').click()
    return page
  }

  it("changed nothing but import specifiers and the Auth.js dependencies", () => {
    if (migration) throw migration
    expect(app.changed.sort()).toEqual(["package.json", "src/app.ts", "src/config/auth.config.ts", "src/middleware/auth.middleware.ts"])
  })

  it("type-checks with tsc (strict, moduleResolution nodenext)", async () => {
    // Counting "error TS" lines proves nothing unless tsc ran: a missing or crashing tsc, or
    // one that found no input, prints none. `--extendedDiagnostics` ends a run that read and
    // checked the program with its statistics, and `run` rejects on any exit but 0.
    let exit = "0"
    const output = await run(process.execPath, [join(app.dir, "node_modules", "typescript", "bin", "tsc"), "-p", ".", "--extendedDiagnostics"], { cwd: app.dir, timeout: 180_000 }).catch((error: Error) => {
      exit = /exited with (\S+)/.exec(error.message)?.[1] ?? error.message
      return error.message
    })
    expectOnlyKnownTypeErrors(output, [])
    expect(output, "tsc read the app's TypeScript").toMatch(/^Lines of TypeScript:\s+[1-9]\d*\s*$/m)
    expect(output, "tsc type-checked it").toMatch(/^Check time:\s+\d+(\.\d+)?s\s*$/m)
    expect(exit, `tsc's exit status\n${output}`).toBe("0")
  })

  it("sends a signed-out visitor of the protected page to sign in, and answers the API with 401", async () => {
    const page = await (await newContext(browser!)).newPage()
    await page.goto(url("/protected"))
    await page.waitForURL(/\/auth\/signin\?/)
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe("/protected")
    await page.context().close()
    const api = await fetch(url("/api/protected"))
    expect(api.status).toBe(401)
  })

  it("signs in with credentials on the built-in page and shows the session to getSession on pages and the API", async () => {
    const context = await newContext(browser!)
    const page = await signInWithPassword(context, "/protected")
    await page.waitForURL(url("/protected"))
    expect(await page.textContent("#protected")).toBe("Protected content for bob@example.com")
    await page.goto(url("/"))
    expect(await page.textContent("#status")).toBe("Signed in as Bob <bob@example.com>")
    const api = await context.request.get(url("/api/protected"))
    expect(api.status()).toBe(200)
    expect(await api.json()).toMatchObject({ user: { id: "bob", name: "Bob", email: "bob@example.com" } })
    await context.close()
  })

  it("signs out on the built-in page", async () => {
    const context = await newContext(browser!)
    const page = await signInWithPassword(context)
    await page.waitForURL((u) => !u.pathname.startsWith("/auth/"))
    await page.goto(url("/auth/signout"))
    await page.locator('form[action$="/auth/signout"] button[type="submit"]').click()
    await page.waitForURL((u) => !u.pathname.startsWith("/auth/signout"))
    await page.goto(url("/"))
    await expectSignedOut(page)
    await context.close()
  })

  it("signs in with a generic OIDC provider against a local issuer over http", async () => {
    const context = await newContext(browser!)
    const page = await context.newPage()
    await page.goto(url("/auth/signin?callbackUrl=%2F"))
    await signInAtIssuer(page, 'form[action$="/auth/signin/local-oidc"] button[type="submit"]', oidc!.issuer, url("/"), server!)
    expect(await page.textContent("#status")).toBe("Signed in as Demo User <demo@portcullis.dev>")
    await context.close()
  })
})

import { spawnSync } from "node:child_process"
import { mkdirSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, Page } from "playwright-core"
import { artifacts, browserAvailable, launchChromium, startExample } from "./support.js"
import { startDemoOidcProvider, type DemoOidcProvider } from "@portcullis/example-kit/oidc-server"

const enabled = browserAvailable()
const root = join(import.meta.dirname, "..")
const exampleDir = join(root, "examples", "qwik")

/** A free loopback port: the OpenID provider needs the app's callback URL before the app starts. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The Qwik City demo (client and node-server builds of the built packages), driven in Chromium. */
describe.runIf(enabled)("Qwik City demo in Chromium", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  let op: DemoOidcProvider
  let browser: Browser
  beforeAll(async () => {
    // Qwik 1 builds with the app's own Vite 7; vitest sets NODE_ENV=test, which would make Vite build in development mode.
    const vite = join(exampleDir, "node_modules", "vite", "bin", "vite.js")
    for (const args of [["build"], ["build", "-c", "adapters/node/vite.config.ts"]]) {
      const build = spawnSync(process.execPath, [vite, ...args, "--logLevel", "warn"], { cwd: exampleDir, encoding: "utf8", env: { ...process.env, NODE_ENV: "production" } })
      if (build.status !== 0) throw new Error(`vite ${args.join(" ")} failed:\n${build.stdout}\n${build.stderr}`)
    }
    const port = await freePort()
    op = await startDemoOidcProvider({ port: 0, clientId: "demo-app", clientSecret: "demo-app-secret", redirectUris: [`http://127.0.0.1:${port}/auth/callback/demo-oidc`] })
    demo = await startExample(join(exampleDir, "server.js"), { PORT: String(port), DEMO_OIDC_ISSUER: op.issuer, AUTH_SECRET: "e2e-qwik-secret-0123456789abcdef0123456789" })
    browser = await launchChromium()
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await demo?.stop()
    await op?.close()
  })

  async function signedOutHome(): Promise<Page> {
    const page = await browser.newPage()
    await page.goto(demo.url)
    expect(await page.textContent("#status")).toContain("Not signed in")
    return page
  }

  async function signOut(page: Page) {
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#status")).toContain("Not signed in")
    expect((await page.context().cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
  }

  it("signs in with credentials through useSignIn, shows useSession, signs out through useSignOut", async () => {
    const page = await signedOutHome()
    const form = page.locator("#credentials-form")
    expect(await form.getAttribute("action")).toMatch(/^\?qaction=/)
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#status")).toContain("Demo User")
    expect(JSON.parse((await page.textContent("#session"))!)).toMatchObject({ user: { name: "Demo User", email: "demo@portcullis.dev" } })
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "qwik-signed-in.png"), fullPage: true })
    await signOut(page)
    await page.close()
  })

  it("sends a wrong password back to the sign-in page with an error code", async () => {
    const page = await signedOutHome()
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("wrong")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await page.waitForURL(/\/auth\/signin\?.*error=CredentialsSignin/)
    expect((await page.context().cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
    await page.close()
  })

  it("signs in with the local OpenID provider and signs out", async () => {
    const page = await signedOutHome()
    await page.getByRole("button", { name: "Sign in with Demo OIDC" }).click()
    await page.waitForURL((url) => url.href.startsWith(op.issuer))
    await page.locator("input[name=login]").fill("demo")
    await page.locator("input[name=password]").fill("anything")
    await page.locator("button[type=submit]").click()
    await page.waitForURL((url) => url.href.startsWith(demo.url) || /consent|interaction/.test(url.pathname))
    if (page.url().startsWith(op.issuer)) await page.locator("button[type=submit]").click()
    await page.waitForURL(demo.url + "/")
    expect(await page.textContent("#status")).toContain("Demo User")
    await signOut(page)
    await page.close()
  })

  it("serves the built-in pages under /auth", async () => {
    const signin = await fetch(`${demo.url}/auth/signin`)
    expect(signin.status).toBe(200)
    expect(await signin.text()).toContain("/auth/callback/credentials")
  })

  it("answers an invalid action input with the validation failure shape", async () => {
    const response = await fetch(`${demo.url}/?qaction=PortcullisUseSignIn`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: demo.url },
      body: "providerId=credentials&redirectTo=https%3A%2F%2Fevil.example%2F",
    })
    expect(response.status).toBe(400)
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })

  it("refuses a cross-site post to the sign-in action", async () => {
    const response = await fetch(`${demo.url}/?qaction=PortcullisUseSignIn`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: "providerId=credentials&options.username=demo&options.password=portcullis",
    })
    expect(response.status).toBe(403)
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })

  it("refuses a sign-in posted without the CSRF token", async () => {
    const response = await fetch(`${demo.url}/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo&password=portcullis",
    })
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })
})

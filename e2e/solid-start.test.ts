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
const exampleDir = join(root, "examples", "solid-start")

/** A free loopback port: the OpenID provider needs the app's callback URL before the app starts. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/** The SolidStart demo (vite build of the built packages, served by server.js), driven in Chromium. */
describe.runIf(enabled)("SolidStart demo in Chromium", () => {
  let demo: Awaited<ReturnType<typeof startExample>>
  let op: DemoOidcProvider
  let browser: Browser
  beforeAll(async () => {
    // vitest sets NODE_ENV=test, which would make Vite build in development mode.
    const build = spawnSync(process.execPath, [join(root, "node_modules", "vite", "bin", "vite.js"), "build", "--logLevel", "warn"], { cwd: exampleDir, encoding: "utf8", env: { ...process.env, NODE_ENV: "production" } })
    if (build.status !== 0) throw new Error(`vite build failed:\n${build.stdout}\n${build.stderr}`)
    const port = await freePort()
    op = await startDemoOidcProvider({ port: 0, clientId: "demo-app", clientSecret: "demo-app-secret", redirectUris: [`http://127.0.0.1:${port}/api/auth/callback/demo-oidc`] })
    demo = await startExample(join(exampleDir, "server.js"), { PORT: String(port), DEMO_OIDC_ISSUER: op.issuer, AUTH_SECRET: "e2e-solid-start-secret-0123456789abcdef0123456789" })
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
    await expect.poll(() => page.textContent("#status")).toContain("Not signed in")
    // The buttons work once Solid has hydrated the page.
    await page.waitForFunction(() => (window as any)._$HY?.done === true || document.readyState === "complete")
    return page
  }

  async function signOut(page: Page) {
    await page.click("#sign-out")
    await expect.poll(() => page.textContent("#status")).toContain("Not signed in")
    expect((await page.context().cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
  }

  it("signs in with credentials, shows the session from getSession, signs out", async () => {
    const page = await signedOutHome()
    const posts: string[] = []
    page.on("request", (r) => void (r.method() === "POST" && posts.push(`${r.url()} ${r.postData()}`)))
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("wrong")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await expect.poll(() => page.textContent("#message")).toContain("CredentialsSignin")

    await page.getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await expect.poll(() => page.textContent("#status")).toContain("Demo User")
    expect(JSON.parse((await page.textContent("#session"))!)).toMatchObject({ user: { name: "Demo User", email: "demo@portcullis.dev" } })
    expect(posts.find((p) => p.includes("/api/auth/callback/credentials"))).toMatch(/csrfToken=[0-9a-f]{64}/)
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "solid-start-signed-in.png"), fullPage: true })
    await signOut(page)
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
    await expect.poll(() => page.textContent("#status")).toContain("Demo User")
    await signOut(page)
    await page.close()
  })

  it("serves the built-in pages and webauthn-options under the prefix", async () => {
    const signin = await fetch(`${demo.url}/api/auth/signin`)
    expect(signin.status).toBe(200)
    expect(await signin.text()).toContain("/api/auth/callback/credentials")
    // Not enabled in this app: core answers (a configuration error), the route does not 404.
    const webauthn = await fetch(`${demo.url}/api/auth/webauthn-options`, { redirect: "manual" })
    expect(webauthn.status).not.toBe(404)
  })

  it("refuses a sign-in posted without the CSRF token", async () => {
    const response = await fetch(`${demo.url}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo&password=portcullis",
    })
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })
})

import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Page } from "playwright-core"
import { artifacts, browserAvailable, completeDemoOidcLogin, expectForgedHostsHarmless, frameworkDemo, viteBuild } from "./support.js"

const enabled = browserAvailable()
const root = join(import.meta.dirname, "..")
const exampleDir = join(root, "examples", "solid-start")

/** The SolidStart demo (vite build of the built packages, served by server.js), driven in Chromium. */
describe.runIf(enabled)("SolidStart demo in Chromium", () => {
  const site = frameworkDemo(exampleDir, {
    build: () => viteBuild(exampleDir, join(root, "node_modules", "vite", "bin", "vite.js")),
    callbackPath: "/api/auth/callback/demo-oidc",
    secret: "e2e-solid-start-secret-0123456789abcdef0123456789",
    // The buttons work once Solid has hydrated the page.
    whenReady: (page) => page.waitForFunction(() => (window as any)._$HY?.done === true || document.readyState === "complete").then(() => {}),
  })

  async function signOut(page: Page) {
    await page.click("#sign-out")
    await expect.poll(() => page.textContent("#status")).toContain("Not signed in")
    expect((await page.context().cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
  }

  it("answers forged Host and X-Forwarded-* headers without a 5xx, a stack or a foreign origin (T32)", async () => {
    await expectForgedHostsHarmless(site.demo.url, ["/api/auth/providers", "/api/auth/signin", "/"])
  })

  it("signs in with credentials, shows the session from getSession, signs out", async () => {
    const page = await site.signedOutHome()
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
    const page = await site.signedOutHome()
    await page.getByRole("button", { name: "Sign in with Demo OIDC" }).click()
    await completeDemoOidcLogin(page, site.op.issuer, site.demo.url + "/")
    await expect.poll(() => page.textContent("#status")).toContain("Demo User")
    await signOut(page)
    await page.close()
  })

  it("serves the built-in pages and webauthn-options under the prefix", async () => {
    const signin = await fetch(`${site.demo.url}/api/auth/signin`)
    expect(signin.status).toBe(200)
    expect(await signin.text()).toContain("/api/auth/callback/credentials")
    // Not enabled in this app: core answers (a configuration error), the route does not 404.
    const webauthn = await fetch(`${site.demo.url}/api/auth/webauthn-options`, { redirect: "manual" })
    expect(webauthn.status).not.toBe(404)
  })

  it("refuses a sign-in posted without the CSRF token", async () => {
    const response = await fetch(`${site.demo.url}/api/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo&password=portcullis",
    })
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })
})

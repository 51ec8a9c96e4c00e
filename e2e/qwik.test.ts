import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Page } from "playwright-core"
import { artifacts, browserAvailable, completeDemoOidcLogin, expectForgedHostsHarmless, expectSignedOut, frameworkDemo, viteBuild } from "./support.js"

const enabled = browserAvailable()
const root = join(import.meta.dirname, "..")
const exampleDir = join(root, "examples", "qwik")

/** The Qwik City demo (client and node-server builds of the built packages), driven in Chromium. */
describe.runIf(enabled)("Qwik City demo in Chromium", () => {
  const site = frameworkDemo(exampleDir, {
    build: () => {
      // Qwik 1 builds with the app's own Vite 7: the client, then the node-server bundle.
      const vite = join(exampleDir, "node_modules", "vite", "bin", "vite.js")
      viteBuild(exampleDir, vite)
      viteBuild(exampleDir, vite, ["build", "-c", "adapters/node/vite.config.ts"])
    },
    callbackPath: "/auth/callback/demo-oidc",
    secret: "e2e-qwik-secret-0123456789abcdef0123456789",
  })

  async function signOut(page: Page) {
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL(site.demo.url + "/")
    await expectSignedOut(page)
  }

  it("answers forged Host and X-Forwarded-* headers without a 5xx, a stack or a foreign origin (T32)", async () => {
    await expectForgedHostsHarmless(site.demo.url, ["/auth/providers", "/auth/signin", "/"])
  })

  it("signs in with credentials through useSignIn, shows useSession, signs out through useSignOut", async () => {
    const page = await site.signedOutHome()
    const form = page.locator("#credentials-form")
    expect(await form.getAttribute("action")).toMatch(/^\?qaction=/)
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await page.waitForURL(site.demo.url + "/")
    expect(await page.textContent("#status")).toContain("Demo User")
    expect(JSON.parse((await page.textContent("#session"))!)).toMatchObject({ user: { name: "Demo User", email: "demo@portcullis.dev" } })
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "qwik-signed-in.png"), fullPage: true })
    await signOut(page)
    await page.close()
  })

  it("getSession in an endpoint returns the session of a signed-in request, and null otherwise", async () => {
    const signedOut = await fetch(`${site.demo.url}/api/session`)
    expect(signedOut.status).toBe(200)
    expect(await signedOut.json()).toEqual({ session: null })

    const page = await site.signedOutHome()
    expect(await (await page.request.get(`${site.demo.url}/api/session`)).json()).toEqual({ session: null })
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await page.waitForURL(site.demo.url + "/")
    const { session } = await (await page.request.get(`${site.demo.url}/api/session`)).json()
    expect(session).toMatchObject({ user: { name: "Demo User", email: "demo@portcullis.dev" }, expires: expect.any(String) })
    expect(Date.parse(session.expires)).toBeGreaterThan(Date.now())

    // A session cookie that does not open is no session.
    const forged = await fetch(`${site.demo.url}/api/session`, { headers: { cookie: "authjs.session-token=forged" } })
    expect(await forged.json()).toEqual({ session: null })
    await signOut(page)
    expect(await (await page.request.get(`${site.demo.url}/api/session`)).json()).toEqual({ session: null })
    await page.close()
  })

  it("sends a wrong password back to the sign-in page with an error code", async () => {
    const page = await site.signedOutHome()
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("wrong")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await page.waitForURL(/\/auth\/signin\?.*error=CredentialsSignin/)
    expect((await page.context().cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
    await page.close()
  })

  it("signs in with the local OpenID provider and signs out", async () => {
    const page = await site.signedOutHome()
    await page.getByRole("button", { name: "Sign in with Demo OIDC" }).click()
    await completeDemoOidcLogin(page, site.op.issuer, site.demo.url + "/")
    expect(await page.textContent("#status")).toContain("Demo User")
    await signOut(page)
    await page.close()
  })

  it("serves the built-in pages under /auth", async () => {
    const signin = await fetch(`${site.demo.url}/auth/signin`)
    expect(signin.status).toBe(200)
    expect(await signin.text()).toContain("/auth/callback/credentials")
  })

  it("answers an invalid action input with the validation failure shape", async () => {
    const response = await fetch(`${site.demo.url}/?qaction=PortcullisUseSignIn`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: site.demo.url },
      body: "providerId=credentials&redirectTo=https%3A%2F%2Fevil.example%2F",
    })
    expect(response.status).toBe(400)
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })

  it("refuses a cross-site post to the sign-in action", async () => {
    const response = await fetch(`${site.demo.url}/?qaction=PortcullisUseSignIn`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: "providerId=credentials&options.username=demo&options.password=portcullis",
    })
    expect(response.status).toBe(403)
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })

  it("refuses a sign-in posted without the CSRF token", async () => {
    const response = await fetch(`${site.demo.url}/auth/callback/credentials`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "username=demo&password=portcullis",
    })
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })
})

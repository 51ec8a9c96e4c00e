import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import type { Page } from "playwright-core"
import { artifacts, browserAvailable, completeDemoOidcLogin, expectForgedHostsHarmless, expectSignedOut, frameworkDemo, viteBuild } from "./support.js"

const enabled = browserAvailable()
const root = join(import.meta.dirname, "..")
const exampleDir = join(root, "examples", "sveltekit")

/** The SvelteKit demo (adapter-node build of the built packages), driven in Debian's Chromium. */
describe.runIf(enabled)("SvelteKit demo in Chromium", () => {
  const site = frameworkDemo(exampleDir, {
    build: () => viteBuild(exampleDir, join(root, "node_modules", "vite", "bin", "vite.js")),
    callbackPath: "/auth/callback/demo-oidc",
    secret: "e2e-sveltekit-secret-0123456789abcdef0123456789",
  })

  async function signOutWithComponent(page: Page) {
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.waitForURL(site.demo.url + "/")
    await expectSignedOut(page)
  }

  it("answers forged Host and X-Forwarded-* headers without a 5xx, a stack or a foreign origin (T32)", async () => {
    await expectForgedHostsHarmless(site.demo.url, ["/auth/providers", "/auth/signin", "/"])
  })

  it("renders the SignIn component as a form posting to the /signin action", async () => {
    const page = await site.signedOutHome()
    const form = page.locator("#credentials-form")
    expect(await form.getAttribute("method")).toBe("POST")
    expect(await form.getAttribute("action")).toBe("/signin")
    expect(await form.locator("input[name=providerId]").inputValue()).toBe("credentials")
    // The double-submit token: the hidden field matches the token inside the CSRF cookie.
    const token = await form.locator("input[name=csrfToken]").inputValue()
    expect(token).toMatch(/^[0-9a-f]{64}$/)
    const cookie = (await page.context().cookies()).find((c) => c.name === "authjs.csrf-token")!
    expect(decodeURIComponent(cookie.value).split("|")[0]).toBe(token)
    await page.close()
  })

  it("fills Auth.js's named slots (<div slot=\"submitButton\">, slot=\"credentials\") and snippets alike", async () => {
    const page = await site.signedOutHome()
    // The page fills the credentials form through slots, the OIDC form through a snippet.
    const styled = page.locator("#credentials-form button[type=submit] > div.buttonPrimary")
    expect(await styled.textContent()).toBe("Sign in with password")
    expect(await styled.evaluate((div) => getComputedStyle(div).backgroundColor)).toBe("rgb(37, 99, 235)")
    expect(await page.locator("#credentials-form input[name=username]").count()).toBe(1)
    expect(await page.locator("#credentials-form button[type=submit]").count()).toBe(1)
    await page.close()
  })

  it("refuses a component form whose CSRF token was tampered with", async () => {
    const page = await site.signedOutHome()
    await page.locator("#credentials-form input[name=csrfToken]").evaluate((input: HTMLInputElement) => {
      input.value = "0".repeat(64)
    })
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await page.waitForURL(/error=MissingCSRF/)
    expect((await page.context().cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
    await page.close()
  })

  it("signs in with credentials through the SignIn component, shows the session, signs out", async () => {
    const page = await site.signedOutHome()
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: "Sign in with password" }).click()
    await page.waitForURL(site.demo.url + "/")
    expect(await page.textContent("#status")).toContain("Demo User")
    expect(JSON.parse((await page.textContent("#session"))!)).toMatchObject({ user: { name: "Demo User", email: "demo@portcullis.dev" } })
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "sveltekit-signed-in.png"), fullPage: true })
    const session = (await page.context().cookies()).find((c) => c.name === "authjs.session-token")
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" })
    await signOutWithComponent(page)
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
    expect(JSON.parse((await page.textContent("#session"))!)).toMatchObject({ user: { email: "demo@portcullis.dev" } })
    await signOutWithComponent(page)
    await page.close()
  })

  it("signs in and out with the client functions, which send the CSRF token", async () => {
    const page = await site.browser.newPage()
    const posts: { url: string; body: string }[] = []
    page.on("request", (r) => {
      if (r.method() === "POST") posts.push({ url: r.url(), body: r.postData() ?? "" })
    })
    await page.goto(`${site.demo.url}/client`)
    await page.waitForSelector('main[data-ready="true"]')
    await page.getByLabel("Username").fill("demo")
    await page.getByLabel("Password").fill("wrong")
    await page.getByRole("button", { name: "Sign in (client)" }).click()
    await expect.poll(() => page.textContent("#message")).toContain("CredentialsSignin")

    await page.getByLabel("Password").fill("portcullis")
    await page.getByRole("button", { name: "Sign in (client)" }).click()
    await page.waitForURL(site.demo.url + "/")
    expect(await page.textContent("#status")).toContain("Demo User")
    const signInPost = posts.find((p) => p.url.endsWith("/auth/callback/credentials"))!
    expect(new URLSearchParams(signInPost.body).get("csrfToken")).toMatch(/^[0-9a-f]{64}$/)

    await page.goto(`${site.demo.url}/client`)
    await page.waitForSelector('main[data-ready="true"]')
    await page.getByRole("button", { name: "Sign out (client)" }).click()
    await page.waitForURL(site.demo.url + "/")
    expect(await page.textContent("#status")).toContain("Not signed in")
    const signOutPost = posts.find((p) => p.url.endsWith("/auth/signout"))!
    expect(new URLSearchParams(signOutPost.body).get("csrfToken")).toMatch(/^[0-9a-f]{64}$/)
    await page.close()
  })

  it("refuses a sign-out posted without the CSRF token", async () => {
    const response = await fetch(`${site.demo.url}/auth/signout`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "callbackUrl=/" })
    expect(response.status).not.toBe(200)
    expect(response.headers.get("location") ?? "").not.toBe(`${site.demo.url}/`)
  })

  it("refuses a cross-site post to the sign-in form action", async () => {
    const response = await fetch(`${site.demo.url}/signin`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: "providerId=credentials&username=demo&password=portcullis",
    })
    expect(response.status).toBe(403)
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token"))).toBe(false)
  })
})

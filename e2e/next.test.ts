import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, Page } from "playwright-core"
import { artifacts, browserAvailable, completeDemoOidcLogin, expectForgedHostsHarmless, freePort, launchChromium } from "./support.js"
import { startDemoOidcProvider } from "@portcullis/example-kit/oidc-server"

const root = join(import.meta.dirname, "..")
const app = join(root, "examples", "next")
const nextBin = join(root, "node_modules", "next", "dist", "bin", "next")
const enabled = browserAvailable()


/** `next start` on the port, resolved once Next prints that it is ready. */
async function startNext(port: number, env: Record<string, string>): Promise<{ url: string; output: string[]; stop(): Promise<void> }> {
  const child: ChildProcess = spawn(process.execPath, [nextBin, "start", "-H", "127.0.0.1", "-p", String(port)], {
    cwd: app,
    env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const output: string[] = []
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`next start did not get ready:\n${output.join("")}`)), 60_000)
    child.stdout!.on("data", (chunk: Buffer) => {
      output.push(chunk.toString())
      if (/Ready in/.test(output.join(""))) {
        clearTimeout(timer)
        resolve()
      }
    })
    child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()))
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`next start exited with ${code}:\n${output.join("")}`))
    })
  })
  return {
    url: `http://127.0.0.1:${port}`,
    output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      }),
  }
}

/** The Next.js example (App Router, proxy.ts, Server Actions, React client) in Chromium. */
describe.runIf(enabled)("Next.js example in Chromium", () => {
  let server: Awaited<ReturnType<typeof startNext>>
  let oidc: { issuer: string; close(): Promise<void> } | undefined
  let browser: Browser

  beforeAll(async () => {
    if (!existsSync(join(root, "packages", "next", "dist", "index.js"))) throw new Error("Build the packages first: npm run build")
    // One production build per run; the example imports the built packages (dist), and
    // Next transpiles none of our code.
    const build = spawnSync(process.execPath, [nextBin, "build"], { cwd: app, env: { ...process.env, NODE_ENV: "production", NEXT_TELEMETRY_DISABLED: "1" }, encoding: "utf8" })
    if (build.status !== 0) throw new Error(`next build failed:\n${build.stdout}\n${build.stderr}`)

    const port = await freePort()
    // A production server knows its URL: with only AUTH_TRUST_HOST, a production deployment
    // refuses OAuth on a loopback origin (it could only be a forged Host; docs/security.md).
    const env: Record<string, string> = { AUTH_SECRET: randomBytes(32).toString("hex"), AUTH_URL: `http://127.0.0.1:${port}/api/auth` }
    const clientSecret = randomBytes(16).toString("hex")
    oidc = await startDemoOidcProvider({ port: 0, clientId: "next-example", clientSecret, redirectUris: [`http://127.0.0.1:${port}/api/auth/callback/demo-oidc`] })
    Object.assign(env, { AUTH_DEMO_OIDC_ISSUER: oidc.issuer, AUTH_DEMO_OIDC_ID: "next-example", AUTH_DEMO_OIDC_SECRET: clientSecret })
    server = await startNext(port, env)
    browser = await launchChromium()
  }, 300_000)

  afterAll(async () => {
    await browser?.close()
    await server?.stop()
    await oidc?.close()
  })

  async function signInWithPassword(page: Page, password = "portcullis") {
    await page.fill('form:has(#password-sign-in) input[name="username"]', "demo")
    await page.fill('form:has(#password-sign-in) input[name="password"]', password)
    await page.click("#password-sign-in")
  }

  it("answers forged Host and X-Forwarded-* headers without a 5xx, a stack or a foreign origin (T32)", async () => {
    await expectForgedHostsHarmless(server.url, ["/api/auth/providers", "/api/auth/signin", "/", "/protected"])
  })

  it("sends a signed-out visitor of the protected page to sign in, with callbackUrl", async () => {
    const page = await browser.newPage()
    await page.goto(`${server.url}/protected?tab=2`)
    await page.waitForURL(/\/signin\?/)
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe("/protected?tab=2")
    // The sign-in page itself is not guarded (no redirect loop).
    expect(await page.textContent("h1")).toBe("Sign in")
    await page.close()
  })

  it("signs in with a Server Action, lands back on the protected page, and shows the session on both sides", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/protected`)
    await page.waitForURL(/\/signin\?/)

    await signInWithPassword(page, "wrong")
    await page.waitForSelector("#error")
    expect(await page.textContent("#error")).toContain("Wrong username or password")
    expect(new URL(page.url()).searchParams.get("callbackUrl")).toBe("/protected")

    await signInWithPassword(page)
    await page.waitForURL(`${server.url}/protected`)
    expect(JSON.parse((await page.textContent("#server-session"))!)).toMatchObject({ user: { name: "Demo User", email: "demo@portcullis.dev" } })
    await expect.poll(() => page.textContent("#client-status")).toBe("authenticated")
    expect(JSON.parse((await page.textContent("#client-session"))!)).toMatchObject({ user: { email: "demo@portcullis.dev" } })
    mkdirSync(artifacts, { recursive: true })
    await page.screenshot({ path: join(artifacts, "next-protected.png"), fullPage: true })

    const cookie = (await context.cookies()).find((c) => c.name === "authjs.session-token")!
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax", path: "/" })
    await context.close()
  })

  it("updates a session field from the client (update) and from a Server Action (unstable_update)", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/signin?callbackUrl=/protected`)
    await signInWithPassword(page)
    await page.waitForURL(`${server.url}/protected`)
    await expect.poll(() => page.textContent("#client-status")).toBe("authenticated")

    await page.fill("#client-name", "Ada Client")
    await page.click("#client-rename")
    await expect.poll(() => page.textContent("#client-saved")).toBe("Saved as Ada Client")
    await expect.poll(async () => JSON.parse((await page.textContent("#client-session")) || "null")?.user?.name).toBe("Ada Client")
    await page.reload()
    expect(JSON.parse((await page.textContent("#server-session"))!).user.name).toBe("Ada Client")

    await page.fill("#server-name", "Ada Server")
    await page.click("#server-rename")
    await expect.poll(async () => JSON.parse((await page.textContent("#server-session"))!).user.name).toBe("Ada Server")
    await page.reload()
    await expect.poll(async () => JSON.parse((await page.textContent("#client-session")) || "null")?.user?.name).toBe("Ada Server")
    await context.close()
  })

  it("signs out with a Server Action and tells other tabs", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/signin?callbackUrl=/`)
    await signInWithPassword(page)
    await page.waitForURL(`${server.url}/`)
    expect(await page.textContent("#server-status")).toBe("Signed in as Demo User")

    const other = await context.newPage()
    await other.goto(`${server.url}/`)
    await expect.poll(() => other.textContent("#client-status")).toBe("authenticated")

    await page.click("#sign-out")
    await expect.poll(() => page.textContent("#server-status")).toBe("not signed in")
    expect((await context.cookies()).some((c) => c.name === "authjs.session-token")).toBe(false)
    // The other tab learns of it when it is next focused (visibilitychange refetch).
    await other.bringToFront()
    await other.evaluate(() => document.dispatchEvent(new Event("visibilitychange")))
    await expect.poll(() => other.textContent("#client-status")).toBe("unauthenticated")
    await context.close()
  })

  it("signs in from the browser with the React client's signIn(…, { redirect: false })", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/signin?callbackUrl=/protected`)
    await page.waitForSelector('section[data-ready="true"]')
    await page.fill("#client-username", "demo")
    await page.fill("#client-password", "nope")
    await page.click("#client-sign-in")
    await expect.poll(() => page.textContent("#client-error")).toBe("Wrong username or password.")
    expect(page.url()).toContain("/signin")

    await page.fill("#client-password", "portcullis")
    await page.click("#client-sign-in")
    await page.waitForURL(`${server.url}/protected`)
    expect(JSON.parse((await page.textContent("#server-session"))!).user.email).toBe("demo@portcullis.dev")
    await context.close()
  })

  it("lets callbacks.authorized answer with its own Response, and wraps a route handler with auth()", async () => {
    const context = await browser.newContext()
    const anonymous = await context.request.get(`${server.url}/api/me`, { maxRedirects: 0 })
    expect(anonymous.status()).toBe(401)
    expect(await anonymous.json()).toEqual({ error: "Sign in to use this API" })

    const page = await context.newPage()
    await page.goto(`${server.url}/signin?callbackUrl=/`)
    await signInWithPassword(page)
    await page.waitForURL(`${server.url}/`)
    const signedIn = await context.request.get(`${server.url}/api/me`)
    expect(signedIn.status()).toBe(200)
    expect(await signedIn.json()).toEqual({ name: "Demo User", email: "demo@portcullis.dev" })
    await context.close()
  })

  it("builds the config per request (a header picks the theme of the built-in pages)", async () => {
    const context = await browser.newContext({ extraHTTPHeaders: { "x-demo-theme": "night" } })
    const night = await context.newPage()
    await night.goto(`${server.url}/api/auth/signout`)
    expect(await night.getAttribute("html", "class")).toContain("pc-dark")
    expect(await night.getAttribute("html", "style")).toContain("#f59e0b")
    await context.close()

    const day = await browser.newPage()
    await day.goto(`${server.url}/api/auth/signout`)
    expect(await day.getAttribute("html", "class")).toContain("pc-light")
    expect(await day.getAttribute("html", "style")).toContain("#4f46e5")
    await day.close()
  })

  describe("useSession({ required: true })", () => {
    it("renders a signed-out visitor's page as loading, then sends them to sign in with callbackUrl of the page", async () => {
      // The server-rendered HTML already says "loading": no signed-out content, even before hydration.
      const html = await (await fetch(`${server.url}/required?from=html`)).text()
      expect(html).toMatch(/id="required-status">loading</)

      const context = await browser.newContext()
      const page = await context.newPage()
      const visited = `${server.url}/required?tab=3`
      await page.goto(visited)
      // Through /api/auth/signin to the app's sign-in page (pages.signIn), as next-auth does.
      await page.waitForURL(/\/signin\?/)
      const landed = new URL(page.url())
      expect(landed.pathname).toBe("/signin")
      expect(landed.searchParams.get("error")).toBe("SessionRequired")
      expect(landed.searchParams.get("callbackUrl")).toBe(visited)

      // Signing in there brings the visitor back to the page, now signed in.
      await signInWithPassword(page)
      await page.waitForURL(visited)
      await expect.poll(() => page.textContent("#required-status")).toBe("authenticated")
      expect(await page.textContent("#required-user")).toBe("Demo User")
      await context.close()
    })

    it("the sign-in page keeps an absolute callbackUrl on this site: one naming another origin lands on its path here", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(`${server.url}/signin?callbackUrl=${encodeURIComponent("https://evil.example/protected?x=1")}`)
      await signInWithPassword(page)
      await page.waitForURL(`${server.url}/protected?x=1`)
      await context.close()
    })

    it("calls onUnauthenticated instead, once, and navigates nowhere; the status stays loading", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      const visited = `${server.url}/required?on=callback`
      await page.goto(visited)
      await page.waitForSelector('section[data-hydrated="true"]')
      await expect.poll(() => page.textContent("#required-calls")).toBe("1")
      // Give a navigation, had one been started, the time to happen.
      await page.waitForTimeout(500)
      expect(page.url()).toBe(visited)
      expect(await page.textContent("#required-calls")).toBe("1")
      expect(await page.textContent("#required-status")).toBe("loading")
      expect((await page.textContent("#required-seen"))!.split(" ")).not.toContain("unauthenticated")
      expect(await page.textContent("#required-user")).toBe("")
      await context.close()
    })

    it("gives a signed-in user the session, without calling onUnauthenticated or navigating", async () => {
      const context = await browser.newContext()
      const page = await context.newPage()
      await page.goto(`${server.url}/signin?callbackUrl=/required?on=callback`)
      await signInWithPassword(page)
      await page.waitForURL(`${server.url}/required?on=callback`)
      await page.waitForSelector('section[data-hydrated="true"]')
      expect(await page.textContent("#required-status")).toBe("authenticated")
      expect(await page.textContent("#required-user")).toBe("Demo User")
      await page.waitForTimeout(300)
      expect(await page.textContent("#required-calls")).toBe("0")
      expect(page.url()).toBe(`${server.url}/required?on=callback`)
      // Signed out in another tab: the hook reacts on the next refetch, with the callback.
      await context.request.post(`${server.url}/api/auth/signout`, {
        form: { csrfToken: (await (await context.request.get(`${server.url}/api/auth/csrf`)).json()).csrfToken },
      })
      await page.bringToFront()
      await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")))
      await expect.poll(() => page.textContent("#required-calls")).toBe("1")
      expect(await page.textContent("#required-status")).toBe("loading")
      expect(page.url()).toBe(`${server.url}/required?on=callback`)
      await context.close()
    })
  })

  it("signs in with the demo OpenID provider", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.goto(`${server.url}/protected`)
    await page.waitForURL(/\/signin\?/)
    await page.click("#oidc-sign-in")
    await completeDemoOidcLogin(page, oidc!.issuer, `${server.url}/protected`)
    expect(JSON.parse((await page.textContent("#server-session"))!)).toMatchObject({ user: { email: "demo@portcullis.dev", name: "Demo User" } })
    await context.close()
  })
})

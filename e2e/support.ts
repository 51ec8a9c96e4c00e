import { spawn, spawnSync, type ChildProcess } from "node:child_process"
import { existsSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createServer as createNetServer } from "node:net"
import { chromium, type Browser, type Page } from "playwright-core"
import { afterAll, beforeAll, expect } from "vitest"
import { isCI } from "@portcullis/adapter-test"
import { startDemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { rawRequest } from "../packages/core/test/raw-http.js"

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium"

/**
 * Whether browser tests can run. In CI a missing Chromium is a failure (the CI script
 * installs it); elsewhere the suite is skipped with one line saying what to install.
 */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true
  // The one CI rule of every suite that needs something outside the process (`isCI`: CI set
  // to anything but "", "0" or "false"), so CI=1 no longer skips the browsers silently.
  if (isCI()) throw new Error(`Chromium not found at ${CHROMIUM}: CI must install it (apt-get install -y chromium)`)
  console.warn(`skipping browser tests: install Chromium (apt-get install -y chromium) or set CHROMIUM_PATH`)
  return false
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  })
}

/** Starts an example server as its own process and waits for its "listening on" line. */
export async function startExample(entry: string, env: Record<string, string> = {}): Promise<{ url: string; process: ChildProcess; output: string[]; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [entry], {
    env: { ...process.env, PORT: "0", DEMO_DATA_DIR: mkdtempSync(join(tmpdir(), "portcullis-demo-")), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  })
  const output: string[] = []
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`example did not start:\n${output.join("")}`)), 30_000)
    const onData = (chunk: Buffer) => {
      output.push(chunk.toString())
      const m = /listening on (http:\/\/\S+)/.exec(output.join(""))
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    }
    child.stdout!.on("data", onData)
    child.stderr!.on("data", (c: Buffer) => output.push(c.toString()))
    child.on("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`example exited with ${code}:\n${output.join("")}`))
    })
  })
  return {
    url,
    process: child,
    output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      }),
  }
}

export const artifacts = join(import.meta.dirname, "..", "test-results")

/** A free loopback port: the OpenID provider needs the app's callback URL before the app starts. */
export async function freePort(): Promise<number> {
  const server = createNetServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

/**
 * Runs `vite build` (with `args`) in an example. vitest sets NODE_ENV=test, which would
 * make Vite build in development mode, so production is forced.
 */
export function viteBuild(exampleDir: string, vite: string, args: string[] = ["build"]): void {
  const build = spawnSync(process.execPath, [vite, ...args, "--logLevel", "warn"], { cwd: exampleDir, encoding: "utf8", env: { ...process.env, NODE_ENV: "production" } })
  if (build.status !== 0) throw new Error(`vite ${args.join(" ")} failed:\n${build.stdout}\n${build.stderr}`)
}

/**
 * Starts the local OpenID provider and an example's `server.js` wired to it: the app on a
 * free port whose `<callbackPath>` is registered as the client's redirect URI.
 */
export async function startExampleWithOidc(exampleDir: string, options: { callbackPath: string; secret: string }) {
  const port = await freePort()
  const op = await startDemoOidcProvider({ port: 0, clientId: "demo-app", clientSecret: "demo-app-secret", redirectUris: [`http://127.0.0.1:${port}${options.callbackPath}`] })
  const demo = await startExample(join(exampleDir, "server.js"), { PORT: String(port), DEMO_OIDC_ISSUER: op.issuer, AUTH_SECRET: options.secret })
  return {
    demo,
    op,
    stop: async () => {
      await demo.stop()
      await op.close()
    },
  }
}

/**
 * Goes through the local OpenID provider's development screens (login `demo`, any password;
 * consent on a first authorization) and waits until the browser is back at `returnTo`.
 */
export async function completeDemoOidcLogin(page: Page, issuer: string, returnTo: string): Promise<void> {
  await page.waitForURL((url) => url.href.startsWith(issuer))
  await page.locator('input[name="login"]').fill("demo")
  await page.locator('input[name="password"]').fill("any password")
  await page.locator('button[type="submit"]').click()
  await page.waitForURL((url) => url.href.startsWith(returnTo) || url.href.startsWith(issuer))
  await page.waitForLoadState()
  if (page.url().startsWith(issuer)) await page.locator('button[type="submit"]').click()
  await page.waitForURL(returnTo)
}

/**
 * Opens an emailed link as its reader does: the link shows a confirm page (a GET never uses
 * a token), whose single button posts it. Resolves once the button's answer has loaded.
 */
export async function openEmailedLink(page: Page, link: string): Promise<void> {
  await page.goto(link)
  const confirmPage = page.url()
  await page.locator('form[method="post"] button[type="submit"]').click()
  await page.waitForURL((url) => url.href !== confirmPage)
}

/** Asserts a page shows the signed-out state and the browser holds no session cookie. */
export async function expectSignedOut(page: Page, statusSelector = "#status", text = "Not signed in"): Promise<void> {
  expect(await page.textContent(statusSelector)).toContain(text)
  expect((await page.context().cookies()).some((c) => c.name.endsWith("authjs.session-token"))).toBe(false)
}

/**
 * The setup every framework example's browser test shares: build it, start it beside the
 * local OpenID provider, launch Chromium, and tear all of it down afterwards. Call inside a
 * `describe`; the returned fields are filled in `beforeAll`.
 */
export function frameworkDemo(exampleDir: string, options: { build(): void; callbackPath: string; secret: string; whenReady?: (page: Page) => Promise<void> }) {
  const state: { demo?: Awaited<ReturnType<typeof startExample>>; op?: { issuer: string; close(): Promise<void> }; browser?: Browser } = {}
  beforeAll(async () => {
    options.build()
    Object.assign(state, await startExampleWithOidc(exampleDir, options))
    state.browser = await launchChromium()
  }, 180_000)
  afterAll(async () => {
    await state.browser?.close()
    await state.demo?.stop()
    await state.op?.close()
  })
  return {
    get demo() {
      return state.demo!
    },
    get op() {
      return state.op!
    },
    get browser() {
      return state.browser!
    },
    /** A new page on the example's home page, signed out (and interactive when `whenReady` says so). */
    async signedOutHome(): Promise<Page> {
      const page = await state.browser!.newPage()
      await page.goto(state.demo!.url)
      await expect.poll(() => page.textContent("#status")).toContain("Not signed in")
      await options.whenReady?.(page)
      return page
    },
  }
}

/**
 * T32 against a running example: the attacker's raw requests with a forged `Host` or
 * forwarded header, on each of `paths` (a JSON endpoint, a page). Whoever answers (the framework, its
 * adapter or Portcullis), it is never a 5xx, a stack trace, a file path, a `null` origin or
 * a URL on the attacker's host.
 */
export async function expectForgedHostsHarmless(siteUrl: string, paths: string[]): Promise<void> {
  const port = Number(new URL(siteUrl).port)
  const real = `Host: 127.0.0.1:${port}`
  const forged = [
    ["Host: a@evil.example"],
    ["Host: x:99999"],
    ["Host: evil.example/x"],
    ["Host: evil example"],
    [real, "X-Forwarded-Host: evil.example/x"],
    [real, "X-Forwarded-Host: a@evil.example"],
    [real, "X-Forwarded-Proto: javascript"],
  ]
  for (const lines of forged) {
    for (const path of paths) {
      const response = await rawRequest(port, path, lines)
      const what = `GET ${path} with ${lines.join(" + ")}: ${response.status} ${response.body.slice(0, 300)}`
      expect(response.status, what).toBeGreaterThanOrEqual(200)
      expect(response.status, what).toBeLessThan(500)
      expect(response.body, what).not.toMatch(/\bat .+:\d+:\d+\)?/)
      expect(response.body, what).not.toMatch(/\/(work|home|node_modules)\//)
      expect(`${response.body} ${response.headers.location ?? ""}`, what).not.toMatch(/null\/|\/\/[^"'\s]*evil\.example/)
    }
  }
}

const axeSource = join(import.meta.dirname, "..", "node_modules", "axe-core", "axe.min.js")

/**
 * Every axe-core violation on the page (any impact), as "rule (impact): targets" lines — the
 * issue-32 bar is zero. The page's context needs `bypassCSP: true` for axe to be injected.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axeSource })
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; nodes: { target: unknown[] }[] }[] }> } }).axe
    const result = await axe.run()
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)) }))
  })
  return violations.map((v) => `${v.id} (${v.impact ?? "?"}): ${v.targets.join(", ")}`)
}

/**
 * Tabs through the page from the top and returns the accessible names of what took focus,
 * in order (at most `limit` stops): a control missing from the list cannot be reached by
 * keyboard alone.
 */
export async function tabStops(page: Page, limit = 60): Promise<string[]> {
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
  const stops: string[] = []
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab")
    const name = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement | null
      if (!el || el === document.body) return null
      const label = el.getAttribute("aria-label") ?? (el as HTMLInputElement).labels?.[0]?.textContent ?? el.textContent ?? (el as HTMLInputElement).value ?? el.tagName
      return `${el.tagName.toLowerCase()}:${label.trim().replace(/\s+/g, " ")}`
    })
    if (name === null || stops.includes(name)) break
    stops.push(name)
  }
  return stops
}

/**
 * The identifier-first sign-in page's first step (issue 32): types `email` into its one email
 * field and continues; the methods for the address (passkey, password, emailed link) are then
 * shown, each a form carrying the address.
 */
export async function continueWithEmail(page: Page, email: string): Promise<void> {
  const step = page.locator("form[data-identifier-step]")
  await step.locator('input[name="email"]').fill(email)
  await step.locator('button[type="submit"]').click()
  await page.locator("[data-identifier-methods]:not([hidden])").waitFor()
}

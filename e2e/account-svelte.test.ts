import { mkdirSync, readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { build, type Plugin } from "esbuild"
import { compile } from "svelte/compiler"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { totpCode } from "@portcullis/core/two-factor"
import { authListener } from "../packages/core/test/http-server.js"
import { PASSWORD, testbed } from "../packages/account/test/support.js"
import { artifacts, axeViolations, browserAvailable, launchChromium, tabStops } from "./support.js"

/**
 * Issue 32's Svelte components in Chromium: `<AccountCenter/>` compiled by Svelte's compiler
 * for the browser (as vite-plugin-svelte would), bundled, and mounted on an app's settings
 * page served next to the real auth routes. Ada signs in with her password; the page has zero
 * axe-core violations in English and Arabic, light and dark (the defaults follow the app's
 * `color-scheme` through `light-dark()`), every control is reachable by keyboard, and she
 * uses it: saves her profile, sets up two-factor through a wrong first code (the QR code and
 * key stay; the problem is announced), reads her backup codes (focus moves to them), and
 * signs out her other session.
 */
const enabled = browserAvailable()
const shots = join(artifacts, "account-svelte")
const root = join(import.meta.dirname, "..")

/** Compiles `.svelte` files for the browser, styles injected, as an app's bundler plugin does. */
const svelte: Plugin = {
  name: "svelte",
  setup(b) {
    b.onLoad({ filter: /\.svelte$/ }, (args) => {
      const { js, warnings } = compile(readFileSync(args.path, "utf8"), { filename: args.path, generate: "client", css: "injected" })
      return { contents: js.code, loader: "js", warnings: warnings.map((w) => ({ text: `${w.code}: ${w.message}` })) }
    })
    // The package's own name, as an app resolves it: its store over the TypeScript sources.
    b.onResolve({ filter: /^@portcullis\/account\/svelte$/ }, () => ({ path: join(root, "packages/account/src/svelte.ts") }))
  },
}

async function bundle(): Promise<string> {
  const result = await build({
    stdin: {
      contents: `import { mount } from "svelte"
import { AccountCenter } from ${JSON.stringify(join(root, "packages/account/svelte/index.js"))}
mount(AccountCenter, { target: document.querySelector("main"), props: { basePath: "/auth", locale: document.documentElement.lang } })`,
      resolveDir: root,
      loader: "js",
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    conditions: ["svelte", "browser"],
    plugins: [svelte],
    logLevel: "silent",
  })
  expect(result.warnings.map((w) => w.text)).toEqual([])
  return result.outputFiles[0]!.text
}

const page = (locale: string) => `<!doctype html>
<html lang="${locale}"${locale === "ar" ? ' dir="rtl"' : ""}>
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Settings</title>
<style>:root { color-scheme: light dark; } body { background: Canvas; color: CanvasText; font-family: system-ui, sans-serif; }</style></head>
<body><main></main><script type="module" src="/settings.js"></script></body>
</html>`

describe.runIf(enabled)("the Svelte account center, mounted in Chromium over the real routes", () => {
  let origin: string
  let close: () => Promise<void>
  let browser: Browser
  let bed: ReturnType<typeof testbed>

  beforeAll(async () => {
    bed = testbed({ config: { trustHost: true } })
    const script = await bundle()
    const auth = authListener(bed.config)
    // The app: its settings page and script, and the auth routes under /auth.
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? "/", "http://app.invalid")
      if (url.pathname === "/settings") {
        res.setHeader("content-type", "text/html; charset=utf-8")
        return res.end(page(url.searchParams.get("locale") ?? "en"))
      }
      if (url.pathname === "/settings.js") {
        res.setHeader("content-type", "text/javascript; charset=utf-8")
        return res.end(script)
      }
      auth(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve())))
    browser = await launchChromium()
    mkdirSync(shots, { recursive: true })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await close?.()
  })

  async function signedIn(email: string, colorScheme: "light" | "dark" = "light"): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.newContext({ locale: "en", colorScheme })
    const { csrfToken } = (await (await context.request.get(`${origin}/auth/csrf`)).json()) as { csrfToken: string }
    const answer = await context.request.post(`${origin}/auth/callback/password`, { form: { email, password: PASSWORD, csrfToken }, maxRedirects: 0 })
    expect(answer.status()).toBe(302)
    return { context, page: await context.newPage() }
  }

  it.each([
    ["en", "light"],
    ["en", "dark"],
    ["ar", "light"],
    ["ar", "dark"],
  ] as const)("in %s, %s (the app's color-scheme): zero axe violations and every control reachable by keyboard", async (locale, colorScheme) => {
    const { email } = await bed.person(`ada-svelte-${locale}-${colorScheme}`, { signedIn: false })
    const { context, page } = await signedIn(email, colorScheme)
    try {
      await page.goto(`${origin}/settings?locale=${locale}`)
      await page.locator("#sessions").waitFor()
      expect(await axeViolations(page)).toEqual([])
      const stops = await tabStops(page, 80)
      const controls = await page.locator("main input, main button, main a[href]").count()
      expect(stops.length).toBe(controls)
      await page.screenshot({ path: join(shots, `${locale}-${colorScheme}.png`), fullPage: true })
    } finally {
      await context.close()
    }
  }, 60_000)

  it("a journey: profile, two-factor through a wrong code, the backup codes once, signing out the other session", async () => {
    const { email } = await bed.person("ada-svelte-journey", { signedIn: false })
    const other = await signedIn(email)
    const { context, page } = await signedIn(email)
    try {
      await page.goto(`${origin}/settings`)
      await page.fill("#account-name", "Ada Lovelace")
      await page.click("#profile button[type=submit]")
      await expect.poll(() => page.locator("[role=status]").textContent()).toBe("Saved.")
      await expect.poll(() => page.inputValue("#account-name")).toBe("Ada Lovelace")

      await page.click("#two-factor button")
      await page.locator("#two-factor img").waitFor()
      const key = (await page.locator("#two-factor code.key").textContent())!.replaceAll(" ", "")
      await page.fill("#account-enable-code", "000000")
      await page.click("#two-factor form button[type=submit]")
      await expect.poll(() => page.locator("[role=alert]").textContent()).toContain("That code is not right")
      // The QR code and the key survived the wrong code.
      expect(await page.locator("#two-factor img").getAttribute("alt")).toBe("QR code for your authenticator app")
      expect((await page.locator("#two-factor code.key").textContent())!.replaceAll(" ", "")).toBe(key)
      expect(await axeViolations(page)).toEqual([])
      await page.fill("#account-enable-code", totpCode(key))
      await page.click("#two-factor form button[type=submit]")
      await expect.poll(() => page.locator("#two-factor .codes li code").count()).toBe(10)
      // Shown once: focus goes to them, and the problem of the wrong code is gone.
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("two-factor-codes-heading")
      expect(await page.locator("[role=alert]").textContent()).toBe("")
      expect(await page.locator("#two-factor").textContent()).toContain("Backup codes left: 10")
      expect(await axeViolations(page)).toEqual([])
      await page.screenshot({ path: join(shots, "backup-codes.png"), fullPage: true })

      await expect.poll(() => page.locator("#sessions li").count()).toBe(2)
      expect(await page.locator("#sessions").textContent()).not.toContain("Mozilla/5.0")
      await page.click("#sessions button.danger")
      await expect.poll(() => page.locator("#sessions li").count()).toBe(1)
      expect(await page.locator("[role=status]").textContent()).toBe("The session was signed out.")
      // The button that had focus is gone with the list: focus is on the section's heading.
      await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("sessions-heading")
      const otherAnswer = await other.context.request.get(`${origin}/auth/account/state`)
      expect(otherAnswer.status()).toBe(401)
    } finally {
      await context.close()
      await other.context.close()
    }
  }, 90_000)
})

import { describe, expect, it } from "vitest"
import { Browser, credentialsConfig, direct } from "./helpers.js"

/**
 * The default `redirect` callback (spec §4.4; checklist T30, T31, T33): only same-origin
 * targets; everything else lands on the site. Never a 5xx.
 */
const origin = "http://localhost:3000"
const hostile = [
  "https://evil.example",
  "//evil.example",
  "///evil.example",
  "/\\evil.example",
  "\\/evil.example",
  "\\\\evil.example",
  "/\t/evil.example",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "https:evil.example",
  "http://localhost:3000@evil.example",
  "https://evil.example#@localhost:3000",
  "http://localhost:3000.evil.example",
  "https://аpp.example", // Cyrillic а
  "／／evil.example",
  ".....///…/windows/win.ini",
  "http://[::1",
  "https://%",
  "",
  " ",
]

function isSafe(location: string | null) {
  expect(location).toBeTruthy()
  expect(new URL(location!).origin).toBe(origin)
}

describe("callbackUrl is confined to the site", () => {
  const send = direct(credentialsConfig())

  it.each(hostile)("in the sign-in form body: %j", async (target) => {
    const browser = new Browser(send, origin)
    const response = await browser.signIn(undefined, target)
    expect(response.status).toBe(302)
    isSafe(response.headers.get("location"))
  })

  it.each(hostile)("in the sign-out form body: %j", async (target) => {
    const browser = new Browser(send, origin)
    await browser.signIn()
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/signout", { form: { csrfToken, callbackUrl: target } })
    expect(response.status).toBe(302)
    isSafe(response.headers.get("location"))
  })

  it.each(hostile)("in the sign-in page query: %j", async (target) => {
    const response = await send(new Request(`${origin}/auth/signin?callbackUrl=${encodeURIComponent(target)}`))
    expect(response.status).toBe(200)
    const html = await response.text()
    const values = [...html.matchAll(/name="callbackUrl"[^>]*value="([^"]*)"|value="([^"]*)"[^>]*name="callbackUrl"/g)].map((m) => m[1] ?? m[2])
    expect(values.length).toBeGreaterThan(0)
    for (const v of values) isSafe(v!.replaceAll("&amp;", "&"))
    expect(html).not.toMatch(/javascript:/i)
  })

  it("in a tampered callback-url cookie", async () => {
    const browser = new Browser(send, origin)
    browser.jar.set("authjs.callback-url", { value: "https://evil.example", attributes: {} })
    const response = await browser.signIn()
    isSafe(response.headers.get("location"))
  })

  it("same-origin paths and URLs are kept", async () => {
    for (const [target, expected] of [
      ["/dashboard?tab=1#top", `${origin}/dashboard?tab=1#top`],
      [`${origin}/settings`, `${origin}/settings`],
    ]) {
      const response = await new Browser(send, origin).signIn(undefined, target)
      expect(response.headers.get("location")).toBe(expected)
    }
  })

  it("a POST is answered with 302, never 307/308 (T33)", async () => {
    const response = await new Browser(send, origin).signIn()
    expect(response.status).toBe(302)
  })
})

describe("a custom redirect callback decides", () => {
  it("may allow a trusted second origin", async () => {
    const send = direct(
      credentialsConfig({
        callbacks: {
          redirect: ({ url, baseUrl }) => (new URL(url, baseUrl).origin === "https://docs.example" ? url : baseUrl),
        },
      }),
    )
    const response = await new Browser(send, origin).signIn(undefined, "https://docs.example/start")
    expect(response.headers.get("location")).toBe("https://docs.example/start")
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { direct } from "../helpers.js"
import { emailConfig, newBrowser, redirectOf, requestLink, startSmtp, type TestSmtp } from "./support.js"

/**
 * Link scanners (checklist T47, next-auth #4965/#10383; issue 28): by default opening the
 * link only shows a button; the token is consumed by its CSRF-checked POST. With
 * `interstitial: false` (the Auth.js-compatible opt-out) a GET consumes the link; a HEAD
 * never does.
 */
describe("email links and link scanners", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(async () => {
    await smtp.close()
  })

  it("with interstitial: false, a GET signs in as in Auth.js, and a HEAD request (what many scanners send first) does not consume the link", async () => {
    const config = emailConfig(MemoryAdapter(), smtp.url, {}, { interstitial: false })
    const browser = newBrowser(direct(config))
    await requestLink(browser, "head@example.com")
    const link = smtp.linkFor("head@example.com")
    const head = await newBrowser(direct(config)).request(link, { method: "HEAD" })
    expect(head.status).toBe(405)
    await browser.request(link)
    expect((await browser.session()).user.email).toBe("head@example.com")
  })

  describe.each([
    ["by default", undefined],
    ["with interstitial: true", true],
  ] as const)("%s", (_, interstitial) => {
    const config = () => emailConfig(MemoryAdapter(), smtp.url, {}, { interstitial })

    it("a GET shows a confirm page and consumes nothing; pressing the button signs in", async () => {
      const c = config()
      const browser = newBrowser(direct(c))
      await requestLink(browser, "scan@example.com", { callbackUrl: "http://localhost:3000/inbox" })
      const link = smtp.linkFor("scan@example.com")

      // The scanner: a fresh client that fetches the link, twice.
      for (let i = 0; i < 2; i++) {
        const scanned = await newBrowser(direct(c)).request(link)
        expect(scanned.status).toBe(200)
        expect(scanned.headers.get("cache-control")).toContain("no-store")
        expect(await scanned.text()).toContain("Continue as <strong>scan@example.com</strong>")
      }

      // The person: opens the link, reads the page, presses the button (a form POST).
      const page = await browser.request(link)
      const html = await page.text()
      const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, "&")
      expect(html).toContain(`action="http://localhost:3000/auth/callback/email"`)
      const form = { csrfToken: field("csrfToken")!, callbackUrl: field("callbackUrl")!, token: field("token")!, email: field("email")! }
      expect(form.callbackUrl).toBe("http://localhost:3000/inbox")
      const done = await browser.request("/auth/callback/email", { form, headers: { origin: "http://localhost:3000" } })
      expect(done.headers.get("location")).toBe("http://localhost:3000/inbox")
      expect((await browser.session()).user.email).toBe("scan@example.com")

      // Used once: the same button pressed again fails.
      const again = await browser.request("/auth/callback/email", { form })
      expect(redirectOf(again)).toMatchObject({ error: "Verification" })
    })

    it("the POST is CSRF-checked: a cross-site form post with the link's token is refused", async () => {
      const c = config()
      const browser = newBrowser(direct(c))
      await requestLink(browser, "csrf-link@example.com")
      const link = new URL(smtp.linkFor("csrf-link@example.com"))
      const attacker = newBrowser(direct(c))
      const forged = await attacker.request("/auth/callback/email", {
        form: { token: link.searchParams.get("token")!, email: "csrf-link@example.com" },
        headers: { origin: "https://evil.example" },
      })
      expect(redirectOf(forged).error).toBe("MissingCSRF")
      // The refused POST did not burn the link.
      const page = await browser.request(link.href)
      expect(page.status).toBe(200)
    })

    it("a link without its token goes straight to the Verification error", async () => {
      const response = await newBrowser(direct(config())).request("/auth/callback/email?email=a%40example.com")
      expect(redirectOf(response)).toMatchObject({ path: "/auth/error", error: "Verification" })
    })
  })
})

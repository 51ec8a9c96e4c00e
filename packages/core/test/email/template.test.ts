import { describe, expect, it } from "vitest"
import { renderVerificationEmail } from "@portcullis/core/providers/email"
import { describeDuration } from "../../src/lib/email/template.js"
import type { Theme } from "@portcullis/core"

const now = Date.UTC(2025, 0, 1)
const url = "https://app.example.com/auth/callback/email?callbackUrl=https%3A%2F%2Fapp.example.com%2F&token=abc123&email=ada%40example.com"

function render(theme?: Theme, link = url, lifetime = 24 * 3600 * 1000) {
  return renderVerificationEmail({ url: link, expires: new Date(now + lifetime), theme, now })
}

describe("the built-in sign-in email", () => {
  it("has the host in the subject, and the link and lifetime in both bodies", () => {
    const { subject, html, text } = render()
    expect(subject).toBe("Sign in to app.example.com")
    expect(text.split("\n").slice(0, 2)).toEqual(["Sign in to app.example.com", url])
    expect(text).toContain("expires in 24 hours")
    expect(html).toContain(`href="${url.replace(/&/g, "&amp;")}"`)
    expect(html).toContain("expires in 24 hours")
  })

  it("breaks the host with zero-width spaces so mail clients do not auto-link it", () => {
    const { html } = render()
    expect(html).toContain("<strong>app\u200b.example\u200b.com</strong>")
  })

  it("uses the theme's brand colour and button text colour", () => {
    const { html } = render({ brandColor: "#4f46e5", buttonText: "#fafafa" })
    expect(html).toContain('bgcolor="#4f46e5"')
    expect(html).toContain("color:#fafafa")
    expect(html).toContain("border:1px solid #4f46e5")
  })

  it("drops colours that are not plain CSS colours instead of writing them into style", () => {
    const { html } = render({ brandColor: 'red;background:url(//evil.example/x)"><script>', buttonText: "expression(alert(1))" })
    expect(html).not.toContain("evil.example")
    expect(html).not.toContain("<script>")
    expect(html).not.toContain("expression(")
    expect(html).toContain('bgcolor="#346df1"')
  })

  it("escapes the link: a quote in it cannot leave the attribute", () => {
    const { html } = render(undefined, 'https://app.example.com/auth/callback/email?token=a"onmouseover="x&email=a%40b.co')
    expect(html).not.toContain('"onmouseover="')
    expect(html).toContain("&quot;onmouseover=&quot;")
  })

  it("refuses a link that is not http(s)", () => {
    expect(() => render(undefined, "javascript:alert(1)")).toThrow(TypeError)
  })

  it("states the lifetime coarsely", () => {
    expect(describeDuration(10 * 60 * 1000)).toBe("10 minutes")
    expect(describeDuration(60 * 1000)).toBe("1 minute")
    expect(describeDuration(24 * 3600 * 1000 - 5)).toBe("24 hours")
    expect(describeDuration(3 * 24 * 3600 * 1000)).toBe("3 days")
  })
})

/**
 * `<ImpersonationBanner/>`: the banner for an app's own pages — nothing for a plain session,
 * who, by whom and until when with a one-click end form (the CSRF token in it) while
 * impersonating, in the catalogs' languages.
 */
import { describe, expect, it } from "vitest"
import { createElement } from "react"
import { renderToString } from "react-dom/server"
import { ImpersonationBanner } from "@portcullis/admin/react"

const impersonated = { user: { email: "bob@example.com" }, admin: { impersonatedBy: { id: "user-ada", email: "ada@example.com" }, until: "2026-11-29T01:00:00.000Z" } }

describe("<ImpersonationBanner/>", () => {
  it("renders nothing for a session that is no impersonation, or none", () => {
    expect(renderToString(createElement(ImpersonationBanner, { session: { user: { email: "bob@example.com" } } }))).toBe("")
    expect(renderToString(createElement(ImpersonationBanner, { session: null }))).toBe("")
  })

  it("names the user, the admin and the end, with a form that posts the end with the CSRF token", () => {
    const html = renderToString(createElement(ImpersonationBanner, { session: impersonated, basePath: "/auth", csrfToken: "tok123" }))
    expect(html).toContain('role="region"')
    expect(html).toContain("You are acting as bob@example.com: an impersonation by ada@example.com, until 1:00")
    expect(html).toContain('action="/auth/admin/impersonation/end"')
    expect(html).toContain('name="csrfToken" value="tok123"')
    expect(html).toContain("End impersonation")
  })

  it("escapes what the session says", () => {
    const html = renderToString(createElement(ImpersonationBanner, { session: { ...impersonated, user: { email: "<img src=x onerror=alert(1)>" } } }))
    expect(html).not.toContain("<img")
  })
})

/**
 * Issue 32, attacker's pass: the pages a form post answers with directly — the backup codes
 * (shown once), the goodbye after deletion — are pages like the others: never framed (a
 * framing page could overlay the codes), never stored by a cache or the browser's history.
 */
import { describe, expect, it } from "vitest"
import { totpCode } from "@portcullis/core/two-factor"
import { testbed } from "../support.js"

function expectUnframedUncached(response: { headers: Headers }, what: string) {
  expect(response.headers.get("content-security-policy") ?? "", what).toContain("frame-ancestors 'none'")
  expect(response.headers.get("x-frame-options"), what).toBe("DENY")
  expect(response.headers.get("cache-control") ?? "", what).toContain("no-store")
}

describe("pages answered to a form post", () => {
  it("the backup codes (confirm and regenerate) and the deleted page may not be framed or cached", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const key = ((await ada.post("two-factor/start")).body.manualKey as string).replaceAll(" ", "")
    const csrfToken = await ada.browser.csrfToken()
    const confirmed = await ada.browser.request("/auth/account/two-factor/confirm", { form: { code: totpCode(key), csrfToken } })
    expect(confirmed.status).toBe(200)
    expectUnframedUncached(confirmed, "confirm")
    const regenerated = await ada.browser.request("/auth/account/two-factor/regenerate", { form: { code: totpCode(key, Date.now() + 30_000), csrfToken } })
    expect(regenerated.status).toBe(200)
    expectUnframedUncached(regenerated, "regenerate")
    const deleted = await ada.browser.request("/auth/account/delete", { form: { confirm: "DELETE", csrfToken } })
    expect(deleted.status).toBe(200)
    expectUnframedUncached(deleted, "deleted")
  })
})

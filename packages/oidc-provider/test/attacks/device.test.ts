import { describe, expect, it } from "vitest"
import { CLIENTS, codeFor, field, testbed, type Person, type Testbed } from "../support.js"
import { exchange, refused, web } from "./kit.js"

const DEVICE = "urn:ietf:params:oauth:grant-type:device_code"
const TV = { clientId: "tv", redirectUris: [], grantTypes: [DEVICE, "refresh_token"] as any, name: "Living Room TV" }
const bedWithTv = () => testbed({ provider: { clients: [...CLIENTS, TV] } })

async function start(bed: Testbed) {
  const answer = await bed.call("/auth/oidc/device_authorization", { form: { client_id: "tv", scope: "openid email" } })
  expect(answer.status).toBe(200)
  return answer.body as { device_code: string; user_code: string }
}
const poll = (bed: Testbed, deviceCode: string) => bed.call("/auth/oidc/token", { form: { grant_type: DEVICE, device_code: deviceCode, client_id: "tv" } })

/** The confirmation screen for `code`, as `who` sees it. */
async function confirmation(who: Person, code: string) {
  const form = await (await who.browser.request("/auth/oidc/device")).text()
  const shown = await who.browser.request("/auth/oidc/device", { form: { csrfToken: field(form, "csrfToken"), user_code: code } })
  expect(shown.status).toBe(200)
  return { response: shown, page: await shown.text() }
}

describe("attack: approving someone else's device code from a phishing page (CSRF on the approval)", () => {
  it("an approval posted without the token, with a foreign token, or cross-site is refused and the device keeps waiting", async () => {
    const bed = bedWithTv()
    const ada = await bed.person("ada")
    const eve = await bed.person("eve")
    const { device_code, user_code } = await start(bed)
    const { page } = await confirmation(ada, user_code)
    const csrfToken = field(page, "csrfToken")
    for (const [form, headers] of [
      [{ user_code, decision: "allow" }, {}],
      [{ user_code, decision: "allow", csrfToken: await eve.browser.csrfToken() }, {}],
      [{ user_code, decision: "allow", csrfToken }, { origin: "https://evil.example" }],
      [{ user_code, decision: "allow", csrfToken }, { "sec-fetch-site": "cross-site" }],
    ] as [Record<string, string>, Record<string, string>][]) {
      expect((await ada.browser.request("/auth/oidc/device", { form, headers })).status).toBe(403)
    }
    refused(await poll(bed, device_code), "authorization_pending")
    expect(bed.events()).not.toContain("deviceApproved/success")
  })

  it("a link with the code and decision=allow (GET) only fills the form", async () => {
    const bed = bedWithTv()
    const ada = await bed.person("ada")
    const { device_code, user_code } = await start(bed)
    const response = await ada.browser.request(`/auth/oidc/device?user_code=${user_code}&decision=allow`)
    expect(response.status).toBe(200)
    expect(await response.text()).not.toContain('name="decision"')
    refused(await poll(bed, device_code), "authorization_pending")
  })

  it("the confirmation screen warns, names the client and the code, and cannot be framed", async () => {
    const bed = bedWithTv()
    const ada = await bed.person("ada")
    const { user_code } = await start(bed)
    const { response, page } = await confirmation(ada, user_code)
    expect(page).toContain("Living Room TV")
    expect(page).toContain(user_code)
    expect(page).toMatch(/role="note"/)
    expect(response.headers.get("x-frame-options")).toBe("DENY")
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
  })

  it("a denied code cannot be approved afterwards, by the same person or another", async () => {
    const bed = bedWithTv()
    const ada = await bed.person("ada")
    const eve = await bed.person("eve")
    const { device_code, user_code } = await start(bed)
    const { page } = await confirmation(ada, user_code)
    expect((await ada.browser.request("/auth/oidc/device", { form: { csrfToken: field(page, "csrfToken"), user_code, decision: "deny" } })).status).toBe(200)
    // Decided codes are no longer found: the allow that comes after (the user's own, or another's) is an unknown code.
    for (const who of [ada, eve]) {
      const late = await who.browser.request("/auth/oidc/device", { form: { csrfToken: await who.browser.csrfToken(), user_code, decision: "allow" } })
      expect(late.status).toBe(400)
    }
    expect(bed.events()).not.toContain("deviceApproved/success")
    refused(await poll(bed, device_code), "access_denied")
  })
})

describe("attack: brute-forcing user codes", () => {
  it("50 guesses at once get no more through than the limit (the count is not read-then-written)", async () => {
    const bed = testbed({ config: { rateLimit: {} }, provider: { clients: [...CLIENTS, TV], rateLimit: { device: { max: 5, window: 600 } } } })
    const mallory = await bed.person("mallory")
    const { device_code } = await start(bed)
    const token = await mallory.browser.csrfToken()
    const letters = "BCDFGHJKLMNPQRSTVWXZ"
    const statuses = await Promise.all(Array.from({ length: 50 }, (_, i) => mallory.browser.request("/auth/oidc/device", { form: { csrfToken: token, user_code: `BBBB-B${letters[i % 20]}${letters[Math.floor(i / 20)]}B`, decision: "allow" } }).then((r) => r.status)))
    expect(statuses.filter((s) => s !== 429).length).toBeLessThanOrEqual(5)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(45)
    refused(await poll(bed, device_code), "authorization_pending")
  })
})

describe("attack: polling and grant confusion", () => {
  it("an approved device code is handed out once: a replayed poll gets nothing", async () => {
    const bed = bedWithTv()
    const ada = await bed.person("ada")
    const { device_code, user_code } = await start(bed)
    const { page } = await confirmation(ada, user_code)
    await ada.browser.request("/auth/oidc/device", { form: { csrfToken: field(page, "csrfToken"), user_code, decision: "allow" } })
    expect((await poll(bed, device_code)).status).toBe(200)
    refused(await poll(bed, device_code), "expired_token")
  })

  it("another client polling the device code gets nothing, and the approval it spent is revoked", async () => {
    const bed = testbed({ provider: { clients: [...CLIENTS, TV, { ...TV, clientId: "tv2", name: "Other TV" }] } })
    const ada = await bed.person("ada")
    const { device_code, user_code } = await start(bed)
    const { page } = await confirmation(ada, user_code)
    await ada.browser.request("/auth/oidc/device", { form: { csrfToken: field(page, "csrfToken"), user_code, decision: "allow" } })
    refused(await bed.call("/auth/oidc/token", { form: { grant_type: DEVICE, device_code, client_id: "tv2" } }), "invalid_grant")
    refused(await poll(bed, device_code), "expired_token")
  })

  it("a device code is no authorization code, and an authorization code no device code", async () => {
    const bed = bedWithTv()
    const ada = await bed.person("ada")
    const { device_code } = await start(bed)
    refused(await exchange(bed, device_code), "invalid_grant")
    const { code } = await codeFor(ada)
    refused(await bed.call("/auth/oidc/token", { form: { grant_type: DEVICE, device_code: code, client_id: "tv" } }), "expired_token")
    // The web client may not use the device grant at all.
    refused(await bed.call("/auth/oidc/token", { form: { grant_type: DEVICE, device_code }, headers: web }), "unauthorized_client")
  })
})

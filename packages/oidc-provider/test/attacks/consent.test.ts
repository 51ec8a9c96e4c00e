import { describe, expect, it } from "vitest"
import { ISSUER, SECRET_WEB, authorizeAs, authorizeUrl, basic, field, testbed, type Person, type Testbed } from "../support.js"

/** Opens the consent page for `who`: the page and its form's fields. */
async function consentPageFor(who: Person, params: Record<string, string> = {}) {
  const response = await who.browser.request(authorizeUrl(params))
  expect(response.status).toBe(200)
  const page = await response.text()
  return { response, page, interaction: field(page, "interaction"), csrfToken: field(page, "csrfToken") }
}

/** Nothing was granted: no consent stored, no code anywhere. */
async function nothingGranted(bed: Testbed, who: Person, response: Response) {
  expect(await bed.store.getConsent(who.id, "web")).toBeNull()
  expect(response.headers.get("location") ?? "").not.toContain("code=")
  expect(bed.events()).not.toContain("consentGiven/success")
}

describe("attack: consent CSRF", () => {
  it("a consent POST without the CSRF token, with a foreign one, or cross-site is refused, and the real page still works", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const eve = await bed.person("eve")
    const { interaction, csrfToken } = await consentPageFor(ada)
    const eveToken = await eve.browser.csrfToken()
    for (const [form, headers] of [
      [{ interaction, decision: "allow" }, {}],
      [{ interaction, decision: "allow", csrfToken: "" }, {}],
      [{ interaction, decision: "allow", csrfToken: eveToken }, {}],
      [{ interaction, decision: "allow", csrfToken }, { origin: "https://evil.example" }],
      [{ interaction, decision: "allow", csrfToken }, { "sec-fetch-site": "cross-site" }],
    ] as [Record<string, string>, Record<string, string>][]) {
      const response = await ada.browser.request("/auth/oidc/consent", { form, headers })
      expect(response.status).toBe(403)
      await nothingGranted(bed, ada, response)
    }
    const ok = await ada.browser.request("/auth/oidc/consent", { form: { interaction, decision: "allow", csrfToken } })
    expect(new URL(ok.headers.get("location")!).searchParams.get("code")).toBeTruthy()
  })

  it("another user's interaction id, answered with the attacker's own valid session and token, is refused", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const eve = await bed.person("eve")
    const { interaction } = await consentPageFor(ada)
    const response = await eve.browser.request("/auth/oidc/consent", { form: { interaction, decision: "allow", csrfToken: await eve.browser.csrfToken() } })
    expect(response.status).toBe(403)
    expect(response.headers.get("location")).toBeNull()
    await nothingGranted(bed, ada, response)
    expect(await bed.store.getConsent(eve.id, "web")).toBeNull()
  })

  it("an interaction no consent page was shown for (parked for sign-in) cannot be answered by a signed-in user", async () => {
    const bed = testbed()
    const mallory = await bed.person("mallory", { signedIn: false })
    const parked = await mallory.browser.request(authorizeUrl({}))
    const id = new URL(new URL(parked.headers.get("location")!).searchParams.get("callbackUrl")!).searchParams.get("id")!
    const ada = await bed.person("ada")
    const response = await ada.browser.request("/auth/oidc/consent", { form: { interaction: id, decision: "allow", csrfToken: await ada.browser.csrfToken() } })
    expect(response.status).toBe(403)
    await nothingGranted(bed, ada, response)
  })

  it("replaying a consent POST after use gives no second code, and 20 at once give exactly one", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { interaction, csrfToken } = await consentPageFor(ada)
    const form = { interaction, decision: "allow", csrfToken }
    const answers = await Promise.all(Array.from({ length: 20 }, () => ada.browser.request("/auth/oidc/consent", { form })))
    const codes = answers.map((a) => a.headers.get("location")).filter((l) => l && new URL(l).searchParams.get("code"))
    expect(codes).toHaveLength(1)
    const replay = await ada.browser.request("/auth/oidc/consent", { form })
    expect(replay.status).toBe(400)
    expect(replay.headers.get("location")).toBeNull()
    expect(await replay.text()).toContain("expired or was already used")
  })

  it("a denial cannot be turned into an allow by replaying the form", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { interaction, csrfToken } = await consentPageFor(ada)
    const denied = await ada.browser.request("/auth/oidc/consent", { form: { interaction, decision: "deny", csrfToken } })
    expect(new URL(denied.headers.get("location")!).searchParams.get("error")).toBe("access_denied")
    const allow = await ada.browser.request("/auth/oidc/consent", { form: { interaction, decision: "allow", csrfToken } })
    expect(allow.status).toBe(400)
    await nothingGranted(bed, ada, allow)
  })

  it("GET never grants: the consent route answers GET with 405 and nothing changes", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { interaction, csrfToken } = await consentPageFor(ada)
    const response = await ada.browser.request(`/auth/oidc/consent?interaction=${interaction}&decision=allow&csrfToken=${encodeURIComponent(csrfToken)}`)
    expect(response.status).toBe(405)
    await nothingGranted(bed, ada, response)
  })

  it("an app the user removed from their account loses its tokens: access and refresh", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await authorizeAs(ada, { scope: "openid offline_access" })
    const tokens = (await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code: location!.searchParams.get("code")!, redirect_uri: "https://rp.example/callback" }, headers: basic("web", SECRET_WEB) })).body
    const page = await (await ada.browser.request("/auth/oidc/consents")).text()
    const removed = await ada.browser.request("/auth/oidc/consents/revoke", { form: { csrfToken: field(page, "csrfToken"), clientId: "web" } })
    expect(removed.status).toBe(302)
    expect(await bed.store.getConsent(ada.id, "web")).toBeNull()
    expect((await bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(401)
    const refreshed = await bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: tokens.refresh_token }, headers: basic("web", SECRET_WEB) })
    expect(refreshed.body.error).toBe("invalid_grant")
    // And the next prompt=none gets nothing.
    expect((await authorizeAs(ada, { prompt: "none" })).location!.searchParams.get("error")).toBe("login_required")
  })

  it("revoking a remembered consent needs the CSRF token too", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await authorizeAs(ada, {})
    expect(await bed.store.getConsent(ada.id, "web")).not.toBeNull()
    const response = await ada.browser.request("/auth/oidc/consents/revoke", { form: { clientId: "web" } })
    expect(response.status).toBe(403)
    expect(await bed.store.getConsent(ada.id, "web")).not.toBeNull()
  })
})

describe("attack: clickjacking the consent page", () => {
  it("the consent page and the apps page refuse framing and caching", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { response } = await consentPageFor(ada)
    const apps = await ada.browser.request("/auth/oidc/consents")
    for (const r of [response, apps]) {
      expect(r.headers.get("x-frame-options")).toBe("DENY")
      expect(r.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(r.headers.get("cache-control")).toMatch(/no-store/)
    }
  })
})

describe("attack: reading the signed-in pages cross-origin", () => {
  it("the consent page, the apps page and the device page answer no CORS, preflight or not", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const evil = { origin: "https://evil.example" }
    for (const path of [authorizeUrl({}), "/auth/oidc/consents", "/auth/oidc/device"]) {
      expect((await ada.browser.request(path, { headers: evil })).headers.get("access-control-allow-origin")).toBeNull()
    }
    for (const path of ["/auth/oidc/consent", "/auth/oidc/consents/revoke", "/auth/oidc/device"]) {
      const preflight = await ada.browser.request(path, { method: "OPTIONS", headers: { ...evil, "access-control-request-method": "POST" } })
      expect(preflight.headers.get("access-control-allow-origin")).toBeNull()
      expect(preflight.headers.get("access-control-allow-credentials")).toBeNull()
    }
  })
})

describe("attack: prompt=none as a session oracle", () => {
  // Issue 34, found by this suite: a signed-in browser answered consent_required where a signed-out one
  // answered login_required, so any client the user never allowed (with open registration, any
  // site) learned whether the user was signed in here — max_age=0 told it the same way.
  it("a client the user never allowed learns only its own redirect with login_required, word for word the same signed in or out", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const nobody = await bed.person("nobody", { signedIn: false })
    const answers: string[] = []
    for (const [who, extra] of [[nobody, {}], [nobody, { login_hint: "ada@example.com" }], [nobody, { login_hint: "ghost@example.com" }], [ada, {}], [ada, { login_hint: "ghost@example.com" }], [ada, { max_age: "0" }], [ada, { scope: "openid email" }]] as const) {
      const { location } = await authorizeAs(who, { prompt: "none", ...extra })
      expect(location!.origin + location!.pathname).toBe("https://rp.example/callback")
      expect([...location!.searchParams.keys()].sort()).toEqual(["error", "error_description", "iss", "state"])
      expect(location!.searchParams.get("iss")).toBe(ISSUER)
      expect(location!.href).not.toContain("ada")
      answers.push(location!.search)
    }
    expect(new Set(answers).size).toBe(1)
    expect(answers[0]).toContain("error=login_required")
  })

  it("a client the user allowed may learn the session (that is what prompt=none is for): a code, or re-authentication needed", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await authorizeAs(ada, {})
    expect((await authorizeAs(ada, { prompt: "none" })).location!.searchParams.get("code")).toBeTruthy()
    expect((await authorizeAs(ada, { prompt: "none", max_age: "0" })).location!.searchParams.get("error")).toBe("login_required")
    // A scope beyond what was allowed is a client not allowed for that request: the signed-out answer again.
    const wider = (await authorizeAs(ada, { prompt: "none", scope: "openid email profile offline_access" })).location!
    expect(wider.searchParams.get("error_description")).toBe("The user is not signed in")
  })

  it("an unknown client gets the same page whether the browser is signed in or not, and no redirect", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const nobody = await bed.person("nobody", { signedIn: false })
    const pages = []
    for (const who of [ada, nobody]) {
      const response = await who.browser.request(authorizeUrl({ client_id: "ghost", prompt: "none", redirect_uri: "https://evil.example/cb" }))
      expect(response.status).toBe(400)
      expect(response.headers.get("location")).toBeNull()
      pages.push((await response.text()).replace(/value="[^"]*"/g, "").replace(/nonce-[A-Za-z0-9+/=_-]+/g, ""))
    }
    expect(pages[0]).not.toContain("ada@example.com")
    expect(pages[0]).toContain("not known here")
    expect(pages[1]).toContain("not known here")
    expect(pages[0]).toBe(pages[1])
  })
})

/**
 * The device authorization grant (RFC 8628): the endpoint, the polling answers, the
 * code-entry page (sign-in round trip, phishing warning, consent, approve or deny), guessing
 * limits, single use of an approval under concurrency.
 */
import { createHash } from "node:crypto"
import { afterEach, describe, expect, it, vi } from "vitest"
import { CLIENTS, ISSUER, field, testbed, type Person, type Testbed, type TestbedOptions } from "./support.js"

const DEVICE = "urn:ietf:params:oauth:grant-type:device_code"
const TV = { clientId: "tv", redirectUris: [], grantTypes: [DEVICE, "refresh_token"] as any, name: "Living Room TV" }
const sha256 = (v: string) => createHash("sha256").update(v).digest("hex")

function bed(options: TestbedOptions = {}) {
  return testbed({ ...options, provider: { clients: [...CLIENTS, TV], ...options.provider } })
}

async function start(b: Testbed, form: Record<string, string> = {}) {
  const answer = await b.call("/auth/oidc/device_authorization", { form: { client_id: "tv", scope: "openid email offline_access", ...form } })
  expect(answer.status).toBe(200)
  return answer.body as { device_code: string; user_code: string; verification_uri: string; verification_uri_complete: string; interval: number; expires_in: number }
}

const poll = (b: Testbed, deviceCode: string, clientId = "tv") => b.call("/auth/oidc/token", { form: { grant_type: DEVICE, device_code: deviceCode, client_id: clientId } })

/** Types `code` on the page and answers the consent screen with `decision` (or stops at it). */
async function enter(who: Person, code: string, decision?: "allow" | "deny"): Promise<{ status: number; page: string }> {
  const form = await (await who.browser.request("/auth/oidc/device")).text()
  const shown = await who.browser.request("/auth/oidc/device", { form: { csrfToken: field(form, "csrfToken"), user_code: code } })
  const page = await shown.text()
  if (!decision || shown.status !== 200 || !page.includes('name="decision"')) return { status: shown.status, page }
  const answered = await who.browser.request("/auth/oidc/device", { form: { csrfToken: field(page, "csrfToken"), user_code: field(page, "user_code"), decision } })
  return { status: answered.status, page: await answered.text() }
}

afterEach(() => vi.useRealTimers())

describe("the device authorization endpoint", () => {
  it("is advertised, and hands out a high-entropy device code (kept hashed) and an unambiguous user code", async () => {
    const b = bed()
    const discovery = await b.call("/auth/oidc/.well-known/openid-configuration")
    expect(discovery.body.device_authorization_endpoint).toBe(`${ISSUER}/device_authorization`)
    expect(discovery.body.grant_types_supported).toContain(DEVICE)
    const answer = await start(b)
    expect(answer.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/)
    expect(answer.device_code).toMatch(/^[\w-]{43}$/)
    expect(answer.verification_uri).toBe(`${ISSUER}/device`)
    expect(answer.verification_uri_complete).toBe(`${ISSUER}/device?user_code=${answer.user_code}`)
    expect(answer).toMatchObject({ interval: 5, expires_in: 600 })
    const stored = await b.store.findDeviceByUserCode(answer.user_code.replace("-", ""))
    expect(stored?.deviceCodeHash).toBe(sha256(answer.device_code))
    expect(JSON.stringify(stored)).not.toContain(answer.device_code)
  })

  it("refuses a client without the grant, a scope beyond the client's, and a wrong secret", async () => {
    const b = bed()
    expect((await b.call("/auth/oidc/device_authorization", { form: { client_id: "native", scope: "openid" } })).body.error).toBe("unauthorized_client")
    expect((await b.call("/auth/oidc/device_authorization", { form: { client_id: "tv", scope: "openid admin" } })).body.error).toBe("invalid_scope")
    expect((await b.call("/auth/oidc/device_authorization", { form: { client_id: "web", client_secret: "wrong", scope: "openid" } })).status).toBe(401)
  })
})

describe("polling the token endpoint", () => {
  it("answers authorization_pending, then slow_down when too fast, then the tokens once approved, then nothing", async () => {
    const b = bed()
    const ada = await b.person("ada")
    const { device_code, user_code } = await start(b)
    expect((await poll(b, device_code)).body.error).toBe("authorization_pending")
    expect((await poll(b, device_code)).body.error).toBe("slow_down")
    const approved = await enter(ada, user_code, "allow")
    expect(approved.page).toContain("Your device is connected")
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 20_000 })
    const tokens = await poll(b, device_code)
    expect(tokens.status).toBe(200)
    expect(tokens.body).toMatchObject({ token_type: "Bearer", scope: "openid email offline_access" })
    expect(tokens.body.id_token).toBeTruthy()
    expect(tokens.body.refresh_token).toBeTruthy()
    vi.setSystemTime(Date.now() + 20_000)
    const again = await poll(b, device_code)
    expect(again.status).toBe(400)
    expect(again.body.error).toBe("expired_token")
    expect(b.events()).toEqual(expect.arrayContaining(["deviceApproved/success", "deviceTokenIssued/success"]))
  })

  it("answers access_denied when the person denies", async () => {
    const b = bed()
    const ada = await b.person("ada")
    const { device_code, user_code } = await start(b)
    const denied = await enter(ada, user_code, "deny")
    expect(denied.page).toContain("Nothing was connected")
    expect((await poll(b, device_code)).body.error).toBe("access_denied")
  })

  it("answers expired_token after the code's life", async () => {
    const b = bed()
    const { device_code } = await start(b)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 601_000 })
    expect((await poll(b, device_code)).body.error).toBe("expired_token")
  })

  it("gives nothing to another client polling with a stolen device code", async () => {
    const b = bed({ provider: { clients: [...CLIENTS, TV, { ...TV, clientId: "tv2" }] } })
    const ada = await b.person("ada")
    const { device_code, user_code } = await start(b)
    await enter(ada, user_code, "allow")
    const stolen = await poll(b, device_code, "tv2")
    expect(stolen.body.error).toBe("invalid_grant")
    expect(stolen.body.access_token).toBeUndefined()
  })
})

describe("the code-entry page", () => {
  it("sends a signed-out person to sign in and back with the code; warns about codes from others; is localized", async () => {
    const b = bed()
    const ada = await b.person("ada", { signedIn: false })
    const { user_code } = await start(b)
    const out = await ada.browser.request(`/auth/oidc/device?user_code=${user_code}`)
    expect(out.status).toBe(302)
    const location = new URL(out.headers.get("location")!)
    expect(location.pathname).toBe("/auth/signin")
    expect(location.searchParams.get("callbackUrl")).toBe(`${ISSUER}/device?user_code=${user_code}`)
    const grace = await b.person("grace")
    const page = await (await grace.browser.request(`/auth/oidc/device?user_code=${user_code}`)).text()
    expect(page).toContain(`value="${user_code}"`)
    expect(page).toContain("If someone sent you this code, do not enter it")
    expect(page).toMatch(/<label for="user_code">/)
    const de = await (await grace.browser.request("/auth/oidc/device", { headers: { "accept-language": "de" } })).text()
    expect(de).toContain("Gerät verbinden")
    const ar = await (await grace.browser.request("/auth/oidc/device", { headers: { "accept-language": "ar" } })).text()
    expect(ar).toMatch(/dir="rtl"/)
  })

  it("takes the code in any case, with or without the dash, and shows the client and scopes before approving", async () => {
    const b = bed()
    const ada = await b.person("ada")
    const { user_code } = await start(b)
    const shown = await enter(ada, user_code.replace("-", " ").toLowerCase())
    expect(shown.status).toBe(200)
    expect(shown.page).toContain("Connect Living Room TV to your account?")
    expect(shown.page).toContain('name="decision" value="allow"')
    expect((await b.store.findDeviceByUserCode(user_code.replace("-", "")))?.status).toBe("pending")
  })

  it("refuses a wrong code (400) and a decision posted without the CSRF token", async () => {
    const b = bed()
    const ada = await b.person("ada")
    const { user_code } = await start(b)
    const wrong = await enter(ada, "BBBB-BBBB")
    expect(wrong.status).toBe(400)
    expect(wrong.page).toContain("This code is not valid or has expired")
    const forged = await ada.browser.request("/auth/oidc/device", { form: { user_code, decision: "allow" } })
    expect(forged.status).toBe(403)
    expect((await b.store.findDeviceByUserCode(user_code.replace("-", "")))?.status).toBe("pending")
    expect(b.events()).toContain("deviceCodeRejected/failure")
  })
})

describe("guessing user codes", () => {
  it("is limited per user and address: every post counts, a wrong code too, and the limit answers before the code is looked at", async () => {
    const b = bed({ config: { rateLimit: {} }, provider: { rateLimit: { device: { max: 5, window: 600 } } } })
    const mallory = await b.person("mallory")
    const { user_code } = await start(b)
    const token = await mallory.browser.csrfToken()
    const statuses: number[] = []
    for (let i = 0; i < 7; i++) statuses.push((await mallory.browser.request("/auth/oidc/device", { form: { csrfToken: token, user_code: `BBBB-BBB${"BCDFGHJ"[i]}` } })).status)
    expect(statuses.slice(0, 5)).toEqual([400, 400, 400, 400, 400])
    expect(statuses.slice(5)).toEqual([429, 429])
    // Even the right code now: the limit answers before the code is looked at (no oracle).
    expect((await mallory.browser.request("/auth/oidc/device", { form: { csrfToken: token, user_code } })).status).toBe(429)
  })

  it("counts per user across addresses, and per address across users", async () => {
    const b = bed({ config: { rateLimit: {} }, provider: { rateLimit: { device: { max: 3, window: 600 } } } })
    const mallory = await b.person("mallory")
    const grace = await b.person("grace")
    const guess = async (who: Person, ip: string) => (await who.browser.request("/auth/oidc/device", { form: { csrfToken: await who.browser.csrfToken(), user_code: "BBBB-BBBB" }, headers: { "x-forwarded-for": ip } })).status
    expect([await guess(mallory, "203.0.113.50"), await guess(mallory, "203.0.113.50"), await guess(mallory, "203.0.113.50")]).toEqual([400, 400, 400])
    // The same user from a fresh address: stopped by the per-user count.
    expect(await guess(mallory, "198.51.100.1")).toBe(429)
    // A fresh user from the spent address: stopped by the per-address count…
    expect(await guess(grace, "203.0.113.50")).toBe(429)
    // …while that user elsewhere is not held back.
    expect(await guess(grace, "198.51.100.2")).toBe(400)
  })
})

describe("one approval per code", () => {
  it("of 50 concurrent approvals of one code, exactly one wins; the losers' grants are revoked", async () => {
    const b = bed()
    const ada = await b.person("ada")
    const { device_code, user_code } = await start(b)
    const form = await (await ada.browser.request("/auth/oidc/device")).text()
    const token = field(form, "csrfToken")
    const answers = await Promise.all(Array.from({ length: 50 }, () => ada.browser.request("/auth/oidc/device", { form: { csrfToken: token, user_code, decision: "allow" } })))
    const statuses = answers.map((r) => r.status)
    expect(statuses.filter((s) => s === 200)).toHaveLength(1)
    expect(statuses.filter((s) => s === 409 || s === 400)).toHaveLength(49)
    expect(await b.store.listGrants(ada.id, "tv")).toHaveLength(1)
    expect((await poll(b, device_code)).status).toBe(200)
  })
})

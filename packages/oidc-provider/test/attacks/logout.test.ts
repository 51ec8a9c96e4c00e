import { describe, expect, it } from "vitest"
import { codeFor, field, testbed, type Person } from "../support.js"
import { decodeJwt, encodeJwt, exchange } from "./kit.js"

const BYE = "https://rp.example/bye"

const logout = (who: Person, params: Record<string, string>) => who.browser.request(`/auth/oidc/logout?${new URLSearchParams(params)}`)

async function refusedPage(response: Response) {
  expect(response.status).toBe(400)
  expect(response.headers.get("location")).toBeNull()
  expect(await response.text()).toContain("sign-out request is not valid")
}

describe("attack: open redirect through RP-initiated logout", () => {
  it("post_logout_redirect_uri near-misses, another client's URI, or no client at all: the OP's page, never a redirect, still signed in", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const uri of [`${BYE}/`, `${BYE}x`, `${BYE}/../evil`, "https://rp@evil.example/bye", `${BYE}#x`, `${BYE}?next=https://evil.example`, "https://RP.example/bye", "https://evil.example/"]) {
      await refusedPage(await logout(ada, { client_id: "web", post_logout_redirect_uri: uri }))
    }
    // Registered for web, asked as first; or with nobody named.
    await refusedPage(await logout(ada, { client_id: "first", post_logout_redirect_uri: BYE }))
    await refusedPage(await logout(ada, { post_logout_redirect_uri: BYE }))
    expect((await ada.browser.session())?.user?.email).toBe("ada@example.com")
  })

  it("a signed-out browser is redirected only to the named client's registered URI", async () => {
    const bed = testbed()
    const nobody = await bed.person("nobody", { signedIn: false })
    await refusedPage(await logout(nobody, { client_id: "web", post_logout_redirect_uri: "https://evil.example/" }))
    const ok = await logout(nobody, { client_id: "web", post_logout_redirect_uri: BYE, state: "x&code=planted" })
    const location = new URL(ok.headers.get("location")!)
    expect(location.origin + location.pathname).toBe(BYE)
    expect(location.searchParams.get("state")).toBe("x&code=planted")
    expect(location.searchParams.get("code")).toBeNull()
  })

  it("an id_token_hint naming another client than client_id, a forged one (alg none, edited), or an access token: refused", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    const tokens = (await exchange(bed, code)).body
    await refusedPage(await logout(ada, { id_token_hint: tokens.id_token, client_id: "first", post_logout_redirect_uri: BYE }))
    const { header, payload, signature } = decodeJwt(tokens.id_token)
    await refusedPage(await logout(ada, { id_token_hint: encodeJwt({ ...header, alg: "none" }, { ...payload, aud: "first" }), post_logout_redirect_uri: BYE }))
    await refusedPage(await logout(ada, { id_token_hint: encodeJwt(header, { ...payload, aud: "first" }, signature), post_logout_redirect_uri: BYE }))
    await refusedPage(await logout(ada, { id_token_hint: tokens.access_token, post_logout_redirect_uri: BYE }))
  })

  it("GET logout never signs out (a confirmation form with the CSRF token), and the done step refuses a browser still signed in", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid offline_access" })
    const tokens = (await exchange(bed, code)).body
    const shown = await logout(ada, { client_id: "web", post_logout_redirect_uri: BYE })
    // The confirmation cannot be framed (a clickjacked sign-out).
    expect(shown.headers.get("x-frame-options")).toBe("DENY")
    expect(shown.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
    const page = await shown.text()
    expect((await ada.browser.session())?.user?.email).toBe("ada@example.com")
    const done = new URL(field(page, "callbackUrl"), "http://localhost:3000")
    // A cross-site page that sends the browser straight to the done step: nothing happens.
    const jumped = await ada.browser.request(done.pathname + done.search)
    expect(jumped.status).toBe(400)
    expect(jumped.headers.get("location")).toBeNull()
    expect((await bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } })).status).toBe(200)
  })
})

import { describe, expect, it } from "vitest"
import { CLIENTS, ISSUER, RP, SECRET_WEB, authorizeAs, authorizeUrl, codeFor, pkce, testbed, type Person, type Testbed } from "../support.js"

/** An authorize request the OP must answer with its own error page: no redirect anywhere, nothing parked. */
async function refusedHere(bed: Testbed, who: Person, params: Record<string, string>, reason = /did not register|not known here|malformed/) {
  const response = await who.browser.request(authorizeUrl(params))
  expect(response.status, `${JSON.stringify(params)}`).toBe(400)
  expect(response.headers.get("location")).toBeNull()
  const page = await response.text()
  expect(page).toMatch(reason)
  expect(page).not.toContain('name="interaction"')
}

const notRegistered = /did not register/

const clients = [
  ...CLIENTS,
  { clientId: "ports", clientSecret: SECRET_WEB, redirectUris: ["https://rp.example:8443/cb", "https://rp.example/cb?tenant=a&iss=https%3A%2F%2Fevil.example&code=planted"], name: "Ports" },
]

describe("attack: redirect URI tricks against an https URI", () => {
  const tricks = [
    // prefix and suffix
    `${RP}x`, `${RP}/evil`, "https://rp.example/call", "https://rp.example.evil.example/callback", "https://evilrp.example/callback", "https://rp.example/callbac",
    // path traversal, literal and encoded, single and double
    `${RP}/../evil`, "https://rp.example/evil/../callback", "https://rp.example/./callback", `${RP}%2F..%2Fevil`, `${RP}/%2e%2e/evil`, "https://rp.example/%2e%2e/callback", `${RP}%252F..%252Fevil`, "https://rp.example/%63allback", "https%3A%2F%2Frp.example%2Fcallback",
    // userinfo and authority confusion
    "https://rp@evil.example/callback", "https://rp.example@evil.example/callback", "https://evil.example\\@rp.example/callback", "https://evil.example#@rp.example/callback", "https://evil.example?@rp.example/callback", "https://rp.example%40evil.example/callback",
    // case, trailing slash and empty parts
    "https://RP.example/callback", "HTTPS://rp.example/callback", "https://rp.example/Callback", `${RP}/`, `${RP}?`, `${RP}#`, `${RP}.`, "https://rp.example./callback",
    // fragment, query, port, scheme
    `${RP}#x`, `${RP}?next=https://evil.example`, "https://rp.example:443/callback", "https://rp.example:8443/callback", "http://rp.example/callback", "javascript://rp.example/callback",
    // whitespace and control characters around an exact URI
    ` ${RP}`, `${RP} `, `${RP}\t`, `${RP}%00`, `${RP}\u0000`,
  ]
  it(`refuses ${tricks.length} near-misses of the registered URI with the OP's own page, never a redirect`, async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const redirect_uri of tricks) await refusedHere(bed, ada, { redirect_uri }, notRegistered)
  })

  it("a port change on a non-loopback URI is refused (the port is part of the exact match)", async () => {
    const bed = testbed({ provider: { clients } })
    const ada = await bed.person("ada")
    for (const redirect_uri of ["https://rp.example/cb", "https://rp.example:8444/cb", "https://rp.example:443/cb", "https://rp.example:08443/cb"]) await refusedHere(bed, ada, { client_id: "ports", redirect_uri }, notRegistered)
    const { location } = await authorizeAs(ada, { client_id: "ports", redirect_uri: "https://rp.example:8443/cb" })
    expect(location!.href.startsWith("https://rp.example:8443/cb?")).toBe(true)
  })

  it("another client's registered URI is refused", async () => {
    const bed = testbed({ provider: { clients } })
    const ada = await bed.person("ada")
    await refusedHere(bed, ada, { client_id: "ports", redirect_uri: RP })
    await refusedHere(bed, ada, { client_id: "web", redirect_uri: "https://rp.example:8443/cb" })
  })
})

describe("attack: redirect URI tricks against a native app's loopback URI (RFC 8252 §7.3: any port, nothing else)", () => {
  const native = (redirect_uri: string) => ({ client_id: "native", redirect_uri, code_challenge: pkce().challenge, code_challenge_method: "S256" })
  it("refuses localhost for 127.0.0.1, other loopback spellings, https, userinfo, traversal, fragment, query, and other hosts", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const uri of [
      "http://localhost:51234/callback", "http://localhost/callback", "http://[::1]:51234/callback", "http://127.0.0.2:51234/callback", "http://127.1:51234/callback", "http://0x7f000001:51234/callback", "http://2130706433:51234/callback",
      "https://127.0.0.1:51234/callback", "http://127.0.0.1:51234@evil.example/callback", "http://evil@127.0.0.1:51234/callback", "http://127.0.0.1.evil.example:51234/callback",
      "http://127.0.0.1:51234/callback/../evil", "http://127.0.0.1:51234/%2e%2e/callback", "http://127.0.0.1:51234/x/../callback", "http://127.0.0.1:51234/callback/", "http://127.0.0.1:51234/callback#x", "http://127.0.0.1:51234/callback?x=1",
      "HTTP://127.0.0.1:51234/callback", "http://127.0.0.1:51234/Callback", "http://127.0.0.1:/callback", "http://127.0.0.1:99999/callback", "http://127.0.0.1:5a/callback",
      "com.example.app://cb", "com.example.app:/cb/../x", "com.example.app:/cb#x", "COM.EXAMPLE.APP:/cb",
    
    ]) await refusedHere(bed, ada, native(uri), notRegistered)
  })

  it("the loopback URI on another port is accepted and the code goes exactly there (the control)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await codeFor(ada, native("http://127.0.0.1:51234/callback"))
    expect(location.origin + location.pathname).toBe("http://127.0.0.1:51234/callback")
  })
})

describe("attack: open redirect through the authorization endpoint", () => {
  it("errors before the client and redirect URI are known never redirect: unknown client, missing or foreign redirect_uri with a bad request", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    await refusedHere(bed, ada, { client_id: "ghost", redirect_uri: "https://evil.example/", response_type: "token" })
    await refusedHere(bed, ada, { client_id: "", redirect_uri: "https://evil.example/" })
    await refusedHere(bed, ada, { redirect_uri: "https://evil.example/", scope: "nope", response_type: "token" })
    await refusedHere(bed, ada, { redirect_uri: "" })
    // A repeated redirect_uri: two readings of one request are how a check and a redirect diverge.
    const twice = await ada.browser.request(authorizeUrl({}) + `&redirect_uri=${encodeURIComponent("https://evil.example/")}`)
    expect(twice.status).toBe(400)
    expect(twice.headers.get("location")).toBeNull()
  })

  it("a signed-out user and prompt=none with a foreign redirect_uri get the page too, not login_required at the attacker", async () => {
    const bed = testbed()
    const eve = await bed.person("eve", { signedIn: false })
    await refusedHere(bed, eve, { redirect_uri: "https://evil.example/", prompt: "none" })
  })

  it("the form-post authorize refuses the same tricks", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    for (const redirect_uri of [`${RP}/../evil`, "https://rp@evil.example/callback"]) {
      const response = await ada.browser.request("/auth/oidc/authorize", { form: { response_type: "code", client_id: "web", redirect_uri, scope: "openid", state: "s" } })
      expect(response.status).toBe(400)
      expect(response.headers.get("location")).toBeNull()
    }
  })

  it("a redirect URI registered with its own query keeps it, and the OP's code/iss/state replace planted ones (never two of a kind)", async () => {
    const bed = testbed({ provider: { clients } })
    const ada = await bed.person("ada")
    const { location } = await codeFor(ada, { client_id: "ports", redirect_uri: "https://rp.example/cb?tenant=a&iss=https%3A%2F%2Fevil.example&code=planted" })
    expect(location.searchParams.get("tenant")).toBe("a")
    expect(location.searchParams.getAll("code")).toHaveLength(1)
    expect(location.searchParams.get("code")).not.toBe("planted")
    expect(location.searchParams.getAll("iss")).toEqual([ISSUER])
  })
})

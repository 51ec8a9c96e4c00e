import { describe, expect, it } from "vitest"
import { ISSUER, RP, authorizeAs, codeFor, testbed } from "../support.js"

/** The redirect to the client: exactly the registered URI, with `iss` once and equal to the issuer (RFC 9207). */
function toClient(location: URL | undefined): URLSearchParams {
  expect(location, "a redirect to the client").toBeDefined()
  expect(location!.origin + location!.pathname).toBe(RP)
  expect(location!.hash).toBe("")
  expect(location!.searchParams.getAll("iss")).toEqual([ISSUER])
  return location!.searchParams
}

describe("attack: mix-up (RFC 9207 iss on every authorization response)", () => {
  it("a success carries iss, once", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await codeFor(ada)
    expect(toClient(location).getAll("code")).toHaveLength(1)
  })

  it("every error redirect carries iss: bad scope, response type, response mode, PKCE, request objects, denial, login_required signed in or out", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const eve = await bed.person("eve", { signedIn: false })
    const cases: [Parameters<typeof authorizeAs>[0], Record<string, string>, string, ("allow" | "deny")?][] = [
      [ada, { scope: "openid admin" }, "invalid_scope"],
      [ada, { response_type: "token" }, "unsupported_response_type"],
      [ada, { response_type: "code id_token" }, "unsupported_response_type"],
      [ada, { response_mode: "fragment" }, "invalid_request"],
      [ada, { response_mode: "form_post" }, "invalid_request"],
      [ada, { code_challenge_method: "S256" }, "invalid_request"],
      [ada, { request: "eyJhbGciOiJub25lIn0.e30." }, "request_not_supported"],
      [ada, { request_uri: "https://evil.example/req" }, "request_uri_not_supported"],
      [ada, { prompt: "none login" }, "invalid_request"],
      [ada, { max_age: "-1" }, "invalid_request"],
      [ada, { resource: "https://evil.example/api" }, "invalid_target"],
      [ada, {}, "access_denied", "deny"],
      [ada, { prompt: "none" }, "login_required"],
      [eve, { prompt: "none" }, "login_required"],
    ]
    for (const [who, params, error, decision] of cases) {
      const { location } = await authorizeAs(who, { state: "st-mix", ...params }, decision)
      const query = toClient(location)
      expect(query.get("error"), JSON.stringify(params)).toBe(error)
      expect(query.get("state")).toBe("st-mix")
      expect(query.get("code")).toBeNull()
    }
  })

  it("response_mode=fragment cannot move the answer (or iss) out of the query", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await authorizeAs(ada, { response_mode: "fragment" })
    expect(location!.hash).toBe("")
    expect(toClient(location).get("error")).toBe("invalid_request")
  })
})

describe("attack: parameter injection into the redirect through state", () => {
  const planted = "x&code=planted&iss=https%3A%2F%2Fevil.example&error=none#frag"
  it("a state carrying &code=, &iss= and a fragment comes back as one opaque value, on success", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await codeFor(ada, { state: planted })
    const query = toClient(location)
    expect(query.get("state")).toBe(planted)
    expect(query.getAll("code")).toHaveLength(1)
    expect(query.get("code")).not.toBe("planted")
    expect(query.get("error")).toBeNull()
  })

  it("and on an error", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await authorizeAs(ada, { state: planted, scope: "openid admin" })
    const query = toClient(location)
    expect(query.get("state")).toBe(planted)
    expect(query.getAll("code")).toEqual([])
    expect(query.getAll("error")).toEqual(["invalid_scope"])
  })

  it("an oversized state is refused (it would ride in every redirect) but still to the registered URI with iss", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await authorizeAs(ada, { state: "s".repeat(513) })
    expect(toClient(location).get("error")).toBe("invalid_request")
  })

  it("CR/LF in state cannot split the Location header", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { location } = await codeFor(ada, { state: "a\r\nSet-Cookie: pwned=1" })
    expect(toClient(location).get("state")).toBe("a\r\nSet-Cookie: pwned=1")
    expect(ada.browser.jar.has("pwned")).toBe(false)
  })
})

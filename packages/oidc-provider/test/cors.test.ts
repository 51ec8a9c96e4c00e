/**
 * Browser-based clients (single-page apps, browser MCP clients) call discovery, the JWKS, the
 * token, userinfo and revocation endpoints cross-origin without credentials: each answers its
 * preflight and every answer — an `invalid_grant`, a 401 with its `WWW-Authenticate` — is
 * readable with `Access-Control-Allow-Origin: *`. The pages (authorize, consent, logout) are
 * navigations, never fetched: no CORS there.
 */
import { describe, expect, it } from "vitest"
import { Auth } from "@portcullis/core"
import { ORIGIN, RP, basic, codeFor, SECRET_WEB, testbed } from "./support.js"

const SPA = { origin: "https://spa.example" }

describe("CORS on the provider's endpoints", () => {
  it("the fetched endpoints answer their preflight with their methods and no credentials", async () => {
    const bed = testbed()
    const expected: Record<string, string> = {
      ".well-known/openid-configuration": "GET",
      ".well-known/oauth-authorization-server": "GET",
      jwks: "GET",
      token: "POST",
      userinfo: "GET, POST",
      revoke: "POST",
    }
    for (const [path, methods] of Object.entries(expected)) {
      const answer = await bed.call(`/auth/oidc/${path}`, { method: "OPTIONS", headers: { ...SPA, "access-control-request-method": methods.split(", ")[0]!, "access-control-request-headers": "authorization, dpop" } })
      expect(answer.status, path).toBe(204)
      expect(answer.headers.get("access-control-allow-origin"), path).toBe("*")
      expect(answer.headers.get("access-control-allow-methods"), path).toBe(methods)
      expect(answer.headers.get("access-control-allow-headers"), path).toContain("dpop")
      expect(answer.headers.get("access-control-allow-credentials"), path).toBeNull()
    }
  })

  it("the pages answer no preflight and carry no CORS headers", async () => {
    const bed = testbed()
    for (const path of ["authorize", "consent", "logout", "introspect"]) {
      const answer = await bed.call(`/auth/oidc/${path}`, { method: "OPTIONS", headers: SPA })
      expect(answer.status, path).toBe(405)
      expect(answer.headers.get("access-control-allow-origin"), path).toBeNull()
    }
    const logout = await bed.call("/auth/oidc/logout", { headers: SPA })
    expect(logout.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("discovery, the JWKS and the token's answers — success and refusal — are readable cross-origin", async () => {
    const bed = testbed()
    for (const path of [".well-known/openid-configuration", "jwks"]) {
      const answer = await bed.call(`/auth/oidc/${path}`, { headers: SPA })
      expect(answer.status).toBe(200)
      expect(answer.headers.get("access-control-allow-origin")).toBe("*")
    }
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    const form = { grant_type: "authorization_code", code, redirect_uri: RP }
    const granted = await bed.call("/auth/oidc/token", { form, headers: { ...SPA, ...basic("web", SECRET_WEB) } })
    expect(granted.status).toBe(200)
    expect(granted.headers.get("access-control-allow-origin")).toBe("*")
    const replayed = await bed.call("/auth/oidc/token", { form, headers: { ...SPA, ...basic("web", SECRET_WEB) } })
    expect(replayed.body.error).toBe("invalid_grant")
    expect(replayed.headers.get("access-control-allow-origin")).toBe("*")
    const revoked = await bed.call("/auth/oidc/revoke", { form: { token: granted.body.access_token }, headers: { ...SPA, ...basic("web", SECRET_WEB) } })
    expect(revoked.status).toBe(200)
    expect(revoked.headers.get("access-control-allow-origin")).toBe("*")
  })

  it("the token endpoint's refusals before its handler runs — a body too large, one that does not parse, a method it does not take — are readable cross-origin", async () => {
    const bed = testbed()
    const token = (init: RequestInit) => Auth(new Request(new URL("/auth/oidc/token", ORIGIN), { ...init, headers: { ...SPA, ...(init.headers as Record<string, string>) } }), bed.config)
    const big = await token({ method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `grant_type=${"x".repeat(1024 * 1024)}` })
    expect(big.status).toBe(413)
    expect(big.headers.get("access-control-allow-origin")).toBe("*")
    const broken = await token({ method: "POST", headers: { "content-type": "application/json" }, body: "{nope" })
    expect(broken.status).toBe(400)
    expect(broken.headers.get("access-control-allow-origin")).toBe("*")
    const put = await token({ method: "PUT" })
    expect(put.status).toBe(405)
    expect(put.headers.get("access-control-allow-origin")).toBe("*")
    // The pages stay without CORS headers, refusals included.
    const page = await Auth(new Request(new URL("/auth/oidc/authorize", ORIGIN), { method: "POST", headers: { ...SPA, "content-type": "application/json" }, body: "{nope" }), bed.config)
    expect(page.status).toBe(400)
    expect(page.headers.get("access-control-allow-origin")).toBeNull()
  })

  it("userinfo's 401 exposes its WWW-Authenticate challenge to the script", async () => {
    const bed = testbed()
    const refused = await bed.call("/auth/oidc/userinfo", { headers: { ...SPA, authorization: "Bearer not-a-token" } })
    expect(refused.status).toBe(401)
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/)
    expect(refused.headers.get("access-control-allow-origin")).toBe("*")
    expect(refused.headers.get("access-control-expose-headers")).toMatch(/WWW-Authenticate/)
  })
})

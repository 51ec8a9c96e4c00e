/**
 * The access-token check on its fast paths (issue 34): signatures made and checked with
 * synchronous node:crypto, and the per-configuration memory of verified tokens. A token the
 * provider remembers must still fail every check but the signature: revocation, expiry,
 * another issuer; and a forged token must never reach the memory.
 */
import { createLocalJWKSet, jwtVerify } from "jose"
import { afterEach, describe, expect, it, vi } from "vitest"
import { findNodeCrypto, nodeCrypto } from "../src/node-crypto.js"
import { RP, SECRET_WEB, basic, codeFor, testbed, type Person, type Testbed } from "./support.js"

async function tokensFor(bed: Testbed, who: Person) {
  const { code } = await codeFor(who, { scope: "openid email profile offline_access" })
  const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
  expect(answer.status).toBe(200)
  return answer.body as { access_token: string; refresh_token: string; id_token: string }
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

afterEach(() => {
  vi.useRealTimers()
})

describe("node:crypto detection", () => {
  it("finds node:crypto through process.getBuiltinModule, and nothing on a runtime without it (WebCrypto then)", () => {
    expect(nodeCrypto).toBeDefined()
    expect(findNodeCrypto({})).toBeUndefined()
    expect(findNodeCrypto({ process: {} })).toBeUndefined()
    expect(findNodeCrypto({ process: { getBuiltinModule: () => undefined } })).toBeUndefined()
  })
})

describe("tokens signed with node:crypto", () => {
  it("are standard JWS: jose verifies the access and ID tokens against the published JWKS", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { access_token, id_token } = await tokensFor(bed, ada)
    const jwks = createLocalJWKSet((await bed.call("/auth/oidc/jwks")).body)
    const access = await jwtVerify(access_token, jwks, { typ: "at+jwt" })
    expect(access.protectedHeader.alg).toBe("ES256")
    expect(access.payload.sub).toBe(ada.id)
    const id = await jwtVerify(id_token, jwks, { audience: "web" })
    expect(id.payload.sub).toBe(ada.id)
    expect(typeof id.payload.at_hash).toBe("string")
  })
})

describe("a verified access token presented again", () => {
  it("is refused once revoked, although its signature was checked before", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { access_token } = await tokensFor(bed, ada)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(200)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: access_token, token_type_hint: "access_token" }, headers: basic("web", SECRET_WEB) })).status).toBe(200)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(401)
  })

  it("is refused once expired", async () => {
    const bed = testbed({ provider: { ttl: { accessToken: 60 } } })
    const ada = await bed.person("ada")
    const { access_token } = await tokensFor(bed, ada)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(200)
    vi.useFakeTimers({ toFake: ["Date"] })
    vi.setSystemTime(Date.now() + 61_000)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(401)
  })

  it("is refused when its grant ends (the user revokes the app), not answered from memory", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { access_token, refresh_token } = await tokensFor(bed, ada)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(200)
    // Revoking the refresh token revokes the grant, and with it every access token.
    expect((await bed.call("/auth/oidc/revoke", { form: { token: refresh_token }, headers: basic("web", SECRET_WEB) })).status).toBe(200)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(401)
  })
})

describe("the attacker's tokens on the node:crypto path", () => {
  it("refuses a token whose payload, header or signature was changed, even after the genuine one was remembered", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const eve = await bed.person("eve")
    const { access_token } = await tokensFor(bed, ada)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(200)
    const [header, payload, signature] = access_token.split(".") as [string, string, string]
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString())
    const otherPayload = Buffer.from(JSON.stringify({ ...claims, sub: eve.id })).toString("base64url")
    const headerOf = (h: Record<string, unknown>) => Buffer.from(JSON.stringify(h)).toString("base64url")
    const original = JSON.parse(Buffer.from(header, "base64url").toString())
    const forged = [
      `${header}.${otherPayload}.${signature}`,
      `${headerOf({ ...original, alg: "none" })}.${payload}.`,
      `${headerOf({ ...original, alg: "RS256" })}.${payload}.${signature}`,
      `${headerOf({ ...original, crit: ["exp"] })}.${payload}.${signature}`,
      `${header}.${payload}.${signature.slice(0, -4)}AAAA`,
      `${header}.${payload}.${signature}x`,
      `${header}.${payload}.${signature.replace(/-/g, "+").replace(/_/g, "/")}=`,
      `${header}.${payload}`,
    ]
    for (const token of forged) {
      const answer = await bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${token}` } })
      expect(answer.status, token).toBe(401)
    }
  })

  it("refuses a genuine token presented to another issuer of the same configuration", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { access_token } = await tokensFor(bed, ada)
    expect((await bed.call("/auth/oidc/userinfo", { headers: bearer(access_token) })).status).toBe(200)
    const { Auth } = await import("@portcullis/core")
    const elsewhere = await Auth(new Request("http://other.localhost:4000/auth/oidc/userinfo", { headers: bearer(access_token) }), bed.config)
    expect(elsewhere.status).toBe(401)
  })
})

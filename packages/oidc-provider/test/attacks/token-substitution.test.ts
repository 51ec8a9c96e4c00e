import { createHmac, createPublicKey } from "node:crypto"
import { SignJWT, exportJWK, generateKeyPair, type JSONWebKeySet } from "jose"
import { describe, expect, it } from "vitest"
import { Auth } from "@portcullis/core"
import { AccessTokenError, verifyAccessToken } from "@portcullis/oidc-provider/resource"
import { CLIENTS, ISSUER, SECRET_WEB, basic, codeFor, pkce, testbed, type Testbed } from "../support.js"
import { decodeJwt, encodeJwt, exchange, first, introspect, refresh, refused, userinfo, web } from "./kit.js"

const MCP = "https://api.example/mcp"

async function tokensFor(bed: Testbed, params: Record<string, string> = {}) {
  const ada = await bed.person(`ada${Math.random().toString(36).slice(2, 8)}`)
  const { code } = await codeFor(ada, { scope: "openid email offline_access", ...params })
  const answer = await exchange(bed, code)
  expect(answer.status).toBe(200)
  return answer.body as { access_token: string; id_token: string; refresh_token: string }
}

async function jwksOf(bed: Testbed): Promise<JSONWebKeySet> {
  return (await bed.call("/auth/oidc/jwks")).body as JSONWebKeySet
}

/** The token must be refused by userinfo (401 invalid_token), introspection (inactive) and a resource server's verifier. */
async function refusedEverywhere(bed: Testbed, token: string, audience = ISSUER) {
  const info = await userinfo(bed, token)
  expect(info.status).toBe(401)
  expect(info.body.error).toBe("invalid_token")
  expect(info.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/)
  expect((await introspect(bed, token)).body).toEqual({ active: false })
  const error = await verifyAccessToken(token, { issuer: ISSUER, audience, jwks: await jwksOf(bed) }).catch((e: unknown) => e)
  expect(error).toBeInstanceOf(AccessTokenError)
  expect((error as AccessTokenError).code).toBe("invalid_token")
}

describe("attack: token substitution across clients", () => {
  it("client A's access token, introspected by client B, is inactive (as if unknown)", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    expect((await introspect(bed, tokens.access_token)).body.active).toBe(true)
    expect((await introspect(bed, tokens.access_token, first)).body).toEqual({ active: false })
    expect((await introspect(bed, tokens.refresh_token, first)).body).toEqual({ active: false })
  })

  it("client A's token for a resource, introspected by client B that is not that resource server, is inactive", async () => {
    // Issue 34, found by this suite: a client without its own `resources` fell back to every configured
    // resource, so any confidential client saw any client's resource-bound tokens as active.
    const bed = testbed({ provider: { clients: [...CLIENTS, { clientId: "mcp-server", clientSecret: SECRET_WEB, redirectUris: [], grantTypes: ["client_credentials"], scope: "read", serves: [MCP] }] } })
    const tokens = await tokensFor(bed, { resource: MCP })
    expect((await introspect(bed, tokens.access_token, first)).body).toEqual({ active: false })
    expect((await introspect(bed, tokens.access_token, basic("service", SECRET_WEB))).body).toEqual({ active: false })
    // The resource server registered for it (and the client it was issued to) do see it.
    expect((await introspect(bed, tokens.access_token, basic("mcp-server", SECRET_WEB))).body).toMatchObject({ active: true, aud: MCP, client_id: "web" })
    expect((await introspect(bed, tokens.access_token)).body.active).toBe(true)
  })

  // Issue 34, left open by the first pass: `resources` (what a client may ask tokens for) was read
  // as "is that resource server" too, so a relying party allowed to call X saw other clients'
  // X-tokens as active. A resource server is now named by a trait of its own, `serves`.
  it("a relying party allowed to call resource X, introspecting another client's X token, sees it inactive", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { challenge, verifier } = pkce()
    const { code } = await codeFor(ada, { client_id: "native", redirect_uri: "http://127.0.0.1/callback", resource: MCP, code_challenge: challenge, code_challenge_method: "S256" })
    const tokens = (await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, client_id: "native", redirect_uri: "http://127.0.0.1/callback", code_verifier: verifier } })).body
    expect(decodeJwt(tokens.access_token).payload.aud).toBe(MCP)
    // "web" may ask tokens for MCP (its `resources`), but does not serve it.
    expect(CLIENTS.find((c) => c.clientId === "web")?.resources).toContain(MCP)
    expect((await introspect(bed, tokens.access_token)).body).toEqual({ active: false })
  })

  it("a dynamically registered client cannot make itself a resource server", async () => {
    const bed = testbed({ provider: { registration: { open: true, maxClients: 5 } } })
    const response = await Auth(new Request(new URL("/auth/oidc/register", ISSUER), {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": "203.0.113.9" },
      body: JSON.stringify({ redirect_uris: ["https://evil.example/cb"], token_endpoint_auth_method: "client_secret_basic", serves: [MCP], resources: [MCP] }),
    }), bed.config)
    expect(response.status).toBe(201)
    const registered = { body: (await response.json()) as Record<string, unknown> }
    const tokens = await tokensFor(bed, { resource: MCP })
    const asRegistered = basic(registered.body.client_id as string, registered.body.client_secret as string)
    expect((await introspect(bed, tokens.access_token, asRegistered)).body).toEqual({ active: false })
  })

  it("client B cannot revoke client A's tokens (200, as RFC 7009 asks, and nothing changes)", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    for (const token of [tokens.access_token, tokens.refresh_token]) expect((await bed.call("/auth/oidc/revoke", { form: { token }, headers: first })).status).toBe(200)
    expect((await userinfo(bed, tokens.access_token)).status).toBe(200)
    expect((await introspect(bed, tokens.refresh_token)).body.active).toBe(true)
  })

  it("a public client cannot introspect at all", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    const answer = await bed.call("/auth/oidc/introspect", { form: { token: tokens.access_token, client_id: "native" } })
    expect(answer.status).toBe(401)
    expect(answer.body.error).toBe("invalid_client")
  })
})

describe("attack: token substitution across audiences", () => {
  it("a token for resource X is refused at userinfo (the OP is not its audience)", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed, { resource: MCP })
    expect(decodeJwt(tokens.access_token).payload.aud).toBe(MCP)
    const info = await userinfo(bed, tokens.access_token)
    expect(info.status).toBe(401)
    expect(info.body.error).toBe("invalid_token")
  })

  it("a token for resource X is refused by resource Y's verifier, and the OP's own token by X's", async () => {
    const bed = testbed()
    const jwks = await jwksOf(bed)
    const forX = await tokensFor(bed, { resource: MCP })
    expect((await verifyAccessToken(forX.access_token, { issuer: ISSUER, audience: MCP, jwks })).aud).toBe(MCP)
    for (const audience of ["https://api.example/other", "https://api.example/mcp/", "https://api.example", ISSUER]) {
      await expect(verifyAccessToken(forX.access_token, { issuer: ISSUER, audience, jwks })).rejects.toMatchObject({ code: "invalid_token" })
    }
    const forOp = await tokensFor(bed)
    await expect(verifyAccessToken(forOp.access_token, { issuer: ISSUER, audience: MCP, jwks })).rejects.toMatchObject({ code: "invalid_token" })
    await expect(verifyAccessToken(forX.access_token, { issuer: "https://evil.example", audience: MCP, jwks })).rejects.toMatchObject({ code: "invalid_token" })
  })

  it("a refresh token cannot be moved to a resource it was not granted, and the refused try spends nothing", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    // Issue 34, found by this suite: the resource was checked after the rotation, so a refused request
    // spent the token, and the client's next (rightful) refresh looked like reuse and revoked the family.
    refused(await refresh(bed, tokens.refresh_token, { resource: MCP }), "invalid_target")
    refused(await refresh(bed, tokens.refresh_token, { resource: "https://evil.example/" }), "invalid_target")
    refused(await refresh(bed, tokens.refresh_token, { resource: "not a uri" }), "invalid_target")
    expect(bed.events()).not.toContain("refreshReuseDetected/failure")
    const rightful = await refresh(bed, tokens.refresh_token)
    expect(rightful.status).toBe(200)
    expect(decodeJwt(rightful.body.access_token).payload.aud).toBe(ISSUER)
  })

  it("a client_credentials token (about no user) opens no userinfo", async () => {
    const bed = testbed()
    const service = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", scope: "read" }, headers: basic("service", SECRET_WEB) })
    const info = await userinfo(bed, service.body.access_token)
    expect(info.status).toBe(403)
    expect(info.body.error).toBe("insufficient_scope")
  })
})

describe("attack: token type confusion", () => {
  it("an ID token used as an access token is refused everywhere (typ JWT, not at+jwt)", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    expect(decodeJwt(tokens.id_token).header.typ).toBe("JWT")
    await refusedEverywhere(bed, tokens.id_token, "web")
  })

  it("an access token used as an ID token hint at logout is refused", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    const tokens = (await exchange(bed, code)).body
    const response = await ada.browser.request(`/auth/oidc/logout?id_token_hint=${tokens.access_token}&post_logout_redirect_uri=${encodeURIComponent("https://rp.example/bye")}`)
    expect(response.status).toBe(400)
    expect(response.headers.get("location")).toBeNull()
  })

  it("a refresh token as a bearer, an access token as a refresh token or as a code: all refused", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    expect((await userinfo(bed, tokens.refresh_token)).status).toBe(401)
    refused(await refresh(bed, tokens.access_token), "invalid_grant")
    refused(await exchange(bed, tokens.access_token), "invalid_grant")
    refused(await refresh(bed, tokens.id_token), "invalid_grant")
  })
})

describe("attack: the verified-token memory", () => {
  it("a token remembered as verified is still refused once revoked (RFC 7009) or once its grant is revoked", async () => {
    const bed = testbed()
    const one = await tokensFor(bed)
    expect((await userinfo(bed, one.access_token)).status).toBe(200)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: one.access_token, token_type_hint: "access_token" }, headers: web })).status).toBe(200)
    await refusedEverywhere(bed, one.access_token, "https://unused.example")
    const two = await tokensFor(bed)
    expect((await userinfo(bed, two.access_token)).status).toBe(200)
    expect((await bed.call("/auth/oidc/revoke", { form: { token: two.refresh_token }, headers: web })).status).toBe(200)
    expect((await userinfo(bed, two.access_token)).status).toBe(401)
  })

  it("an edited copy of a remembered token is verified on its own, not matched to the remembered one", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    expect((await userinfo(bed, tokens.access_token)).status).toBe(200)
    const { header, payload, signature } = decodeJwt(tokens.access_token)
    await refusedEverywhere(bed, encodeJwt(header, { ...payload, scope: `${payload.scope} admin` }, signature))
    await refusedEverywhere(bed, encodeJwt({ ...header, crit: ["exp"] }, payload, signature))
  })
})

describe("attack: algorithm and key confusion", () => {
  it("the JWKS publishes public parts only, each key with one alg and use sig", async () => {
    const bed = testbed()
    const jwks = await jwksOf(bed)
    expect(jwks.keys.length).toBeGreaterThanOrEqual(2)
    for (const key of jwks.keys) {
      for (const secret of ["d", "p", "q", "dp", "dq", "qi", "k", "oth"]) expect(key).not.toHaveProperty(secret)
      expect(key.kid).toBeTruthy()
      expect(["ES256", "RS256", "PS256", "EdDSA"]).toContain(key.alg)
      expect(key.use ?? "sig").toBe("sig")
    }
  })

  it("alg none, with and without a signature, with the real kid", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    const { header, payload } = decodeJwt(tokens.access_token)
    for (const alg of ["none", "None", "NONE"]) {
      await refusedEverywhere(bed, encodeJwt({ ...header, alg }, payload))
      await refusedEverywhere(bed, encodeJwt({ ...header, alg }, payload, decodeJwt(tokens.access_token).signature))
    }
  })

  it("HS256 with the provider's public key (PEM, JWK JSON, modulus) as the HMAC secret", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    const { payload } = decodeJwt(tokens.access_token)
    const jwks = await jwksOf(bed)
    for (const jwk of jwks.keys) {
      const pem = createPublicKey({ key: jwk as never, format: "jwk" }).export({ type: "spki", format: "pem" }) as string
      for (const secret of [pem, pem.trim(), JSON.stringify(jwk), String(jwk.n ?? jwk.x)]) {
        for (const alg of ["HS256", "HS384", "HS512"]) {
          const unsigned = encodeJwt({ alg, typ: "at+jwt", kid: jwk.kid }, payload)
          const mac = createHmac(`sha${alg.slice(2)}`, secret).update(unsigned.slice(0, -1)).digest("base64url")
          await refusedEverywhere(bed, unsigned + mac)
        }
      }
    }
  })

  it("a JWK embedded in the header, a jku or x5u to the attacker's keys, a kid pointing elsewhere", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    const { header, payload } = decodeJwt(tokens.access_token)
    const attacker = await generateKeyPair("ES256", { extractable: true })
    const jwk = await exportJWK(attacker.publicKey)
    const forged = (extra: Record<string, unknown>) => new SignJWT(payload).setProtectedHeader({ alg: "ES256", typ: "at+jwt", ...extra } as never).sign(attacker.privateKey)
    await refusedEverywhere(bed, await forged({ kid: header.kid, jwk }))
    await refusedEverywhere(bed, await forged({ jwk }))
    await refusedEverywhere(bed, await forged({ kid: header.kid, jku: "https://evil.example/jwks" }))
    await refusedEverywhere(bed, await forged({ kid: header.kid, x5u: "https://evil.example/cert.pem" }))
    await refusedEverywhere(bed, await forged({ kid: "../../../dev/null" }))
    await refusedEverywhere(bed, await forged({ kid: "evil" }))
    await refusedEverywhere(bed, await forged({}))
    // The real signature under another of the provider's kids (the RS256 key for an ES256 token).
    const other = (await jwksOf(bed)).keys.find((k) => k.kid !== header.kid)!
    const [, p, s] = tokens.access_token.split(".")
    await refusedEverywhere(bed, `${encodeJwt({ ...header, kid: other.kid }, {}).split(".")[0]}.${p}.${s}`)
    await refusedEverywhere(bed, `${encodeJwt({ ...header, alg: other.alg }, {}).split(".")[0]}.${p}.${s}`)
  })

  it("a payload edited under the real signature: another user, a wider scope, a later expiry, another audience", async () => {
    const bed = testbed()
    const tokens = await tokensFor(bed)
    const { header, payload, signature } = decodeJwt(tokens.access_token)
    for (const change of [{ sub: "user-admin" }, { scope: `${payload.scope} admin` }, { exp: payload.exp + 86400 }, { aud: MCP }, { gid: "another" }, { client_id: "first" }]) {
      await refusedEverywhere(bed, encodeJwt(header, { ...payload, ...change }, signature))
    }
  })
})

import { SignJWT, exportJWK, generateKeyPair } from "jose"
import { describe, expect, it } from "vitest"
import { CLIENTS, RP, SECRET_WEB, basic, codeFor, pkce, testbed, type Testbed } from "./support.js"

const web = basic("web", SECRET_WEB)

async function exchange(bed: Testbed, code: string, extra: Record<string, string> = {}, headers: Record<string, string> = web) {
  return bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP, ...extra }, headers })
}

async function refresh(bed: Testbed, token: string, extra: Record<string, string> = {}) {
  return bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: token, ...extra }, headers: web })
}

const userinfo = (bed: Testbed, token: string) => bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${token}` } })

describe("token: authorization_code", () => {
  it("redeems a code once; a replay is refused and revokes every token issued from it", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid offline_access" })
    const first = await exchange(bed, code)
    expect(first.status).toBe(200)
    expect(first.body.refresh_token).toBeTruthy()
    expect((await userinfo(bed, first.body.access_token)).status).toBe(200)
    const replay = await exchange(bed, code)
    expect(replay.status).toBe(400)
    expect(replay.body.error).toBe("invalid_grant")
    const after = await userinfo(bed, first.body.access_token)
    expect(after.status).toBe(401)
    expect(after.headers.get("www-authenticate")).toMatch(/^Bearer error="invalid_token"/)
    expect((await refresh(bed, first.body.refresh_token)).body.error).toBe("invalid_grant")
    expect(bed.events()).toContain("codeReplayDetected/failure")
  })

  it("checks PKCE: the verifier must match, be present when a challenge was sent, and absent when none was (no downgrade)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { verifier, challenge } = pkce()
    const withPkce = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256" })
    expect((await exchange(bed, withPkce.code, { code_verifier: pkce().verifier })).body.error).toBe("invalid_grant")
    const again = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256" })
    expect((await exchange(bed, again.code)).body.error).toBe("invalid_grant")
    const ok = await codeFor(ada, { code_challenge: challenge, code_challenge_method: "S256" })
    expect((await exchange(bed, ok.code, { code_verifier: verifier })).status).toBe(200)
    const none = await codeFor(ada)
    expect((await exchange(bed, none.code, { code_verifier: verifier })).body.error).toBe("invalid_grant")
  })

  it("requires the authorize request's redirect_uri and the client the code was issued to", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const a = await codeFor(ada)
    expect((await exchange(bed, a.code, { redirect_uri: `${RP}/other` })).body.error).toBe("invalid_grant")
    const b = await codeFor(ada)
    expect((await exchange(bed, b.code, {}, basic("first", SECRET_WEB))).body.error).toBe("invalid_grant")
  })

  it("50 concurrent redemptions of one code: exactly one 200", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    const answers = await Promise.all(Array.from({ length: 50 }, () => exchange(bed, code)))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    expect(answers.filter((a) => a.status === 400 && a.body.error === "invalid_grant")).toHaveLength(49)
  })

  it("gives a refresh token only with offline_access (the default policy)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada)
    const answer = await exchange(bed, code)
    expect(answer.body.refresh_token).toBeUndefined()
  })

  it("audiences the access token to the resource asked (RFC 8707)", async () => {
    const bed = testbed()
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { resource: "https://api.example/mcp" })
    const answer = await exchange(bed, code)
    const payload = JSON.parse(Buffer.from(answer.body.access_token.split(".")[1], "base64url").toString())
    expect(payload.aud).toBe("https://api.example/mcp")
  })
})

describe("token: refresh_token", () => {
  async function tokens(bed: Testbed) {
    const ada = await bed.person("ada")
    const { code } = await codeFor(ada, { scope: "openid email offline_access" })
    return (await exchange(bed, code)).body
  }

  it("rotates: the new token works, the old one presented again revokes the whole family", async () => {
    const bed = testbed()
    const first = await tokens(bed)
    const second = await refresh(bed, first.refresh_token)
    expect(second.status).toBe(200)
    expect(second.body.refresh_token).not.toBe(first.refresh_token)
    expect(second.body.id_token).toBeTruthy()
    const reuse = await refresh(bed, first.refresh_token)
    expect(reuse.body.error).toBe("invalid_grant")
    expect((await refresh(bed, second.body.refresh_token)).body.error).toBe("invalid_grant")
    expect((await userinfo(bed, second.body.access_token)).status).toBe(401)
    expect(bed.events()).toContain("refreshReuseDetected/failure")
  })

  it("may narrow the scope, never widen it", async () => {
    const bed = testbed()
    const first = await tokens(bed)
    const narrowed = await refresh(bed, first.refresh_token, { scope: "openid" })
    expect(narrowed.status).toBe(200)
    expect(narrowed.body.scope).toBe("openid")
    const widened = await refresh(bed, narrowed.body.refresh_token, { scope: "openid profile" })
    expect(widened.body.error).toBe("invalid_scope")
  })

  it("refuses another client's refresh token", async () => {
    const bed = testbed()
    const first = await tokens(bed)
    const other = await bed.call("/auth/oidc/token", { form: { grant_type: "refresh_token", refresh_token: first.refresh_token }, headers: basic("first", SECRET_WEB) })
    expect(other.body.error).toBe("invalid_grant")
    expect((await refresh(bed, first.refresh_token)).status).toBe(200)
  })

  it("50 concurrent rotations of one refresh token: exactly one rotated", async () => {
    const bed = testbed()
    const first = await tokens(bed)
    const answers = await Promise.all(Array.from({ length: 50 }, () => refresh(bed, first.refresh_token)))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
  })
})

describe("token: client_credentials", () => {
  it("issues an access token alone to a confidential client, refused to a public one", async () => {
    const bed = testbed()
    const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", scope: "read" }, headers: basic("service", SECRET_WEB) })
    expect(answer.status).toBe(200)
    expect(answer.body.id_token).toBeUndefined()
    expect(answer.body.refresh_token).toBeUndefined()
    const openid = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", scope: "openid" }, headers: basic("service", SECRET_WEB) })
    expect(openid.body.error).toBe("invalid_scope")
    const publicClient = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", client_id: "native" } })
    expect(publicClient.body.error).toBe("unauthorized_client")
    const notAllowed = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: web })
    expect(notAllowed.body.error).toBe("unauthorized_client")
  })
})

describe("client authentication", () => {
  const odd = "s3cret: with+plus & percent% and colon:: 0123456789abcdef"

  it("form-url-decodes client_secret_basic credentials (RFC 6749 §2.3.1)", async () => {
    const bed = testbed({ provider: { clients: [...CLIENTS, { clientId: "odd id:+", clientSecret: odd, redirectUris: [], grantTypes: ["client_credentials"], scope: "read" }] } })
    const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: basic("odd id:+", odd) })
    expect(answer.status).toBe(200)
  })

  it("refuses a wrong secret, an unknown client and a method other than the registered one with 401 invalid_client and a challenge", async () => {
    const bed = testbed()
    const wrong = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: basic("service", "nope") })
    expect(wrong.status).toBe(401)
    expect(wrong.body.error).toBe("invalid_client")
    expect(wrong.headers.get("www-authenticate")).toMatch(/^Basic/)
    const unknown = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials" }, headers: basic("ghost", SECRET_WEB) })
    expect(unknown.status).toBe(401)
    const post = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", client_id: "service", client_secret: SECRET_WEB } })
    expect(post.status).toBe(401)
    const none = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", client_id: "service" } })
    expect(none.status).toBe(401)
    const both = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", client_id: "service", client_secret: SECRET_WEB }, headers: basic("service", SECRET_WEB) })
    expect(both.body.error).toBe("invalid_request")
    expect(bed.events().filter((e) => e === "clientAuthFailed/failure").length).toBeGreaterThanOrEqual(4)
    expect(bed.log.lines.join("\n")).not.toContain(SECRET_WEB)
  })

  it("private_key_jwt: a signed assertion for the issuer or token endpoint, used once", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ES256")
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }
    const bed = testbed({ provider: { clients: [...CLIENTS, { clientId: "signer", jwks: { keys: [jwk] }, redirectUris: [], grantTypes: ["client_credentials"], scope: "read" }] } })
    const assertion = (aud: string, jti: string) =>
      new SignJWT({ jti }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuer("signer").setSubject("signer").setAudience(aud).setIssuedAt().setExpirationTime("2m").sign(privateKey)
    const form = async (aud: string, jti: string) => ({ grant_type: "client_credentials", client_id: "signer", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: await assertion(aud, jti) })
    const ok = await bed.call("/auth/oidc/token", { form: await form("http://localhost:3000/auth/oidc", "j1") })
    expect(ok.status).toBe(200)
    const endpoint = await bed.call("/auth/oidc/token", { form: await form("http://localhost:3000/auth/oidc/token", "j2") })
    expect(endpoint.status).toBe(200)
    const replay = await bed.call("/auth/oidc/token", { form: await form("http://localhost:3000/auth/oidc", "j1") })
    expect(replay.status).toBe(401)
    const otherAud = await bed.call("/auth/oidc/token", { form: await form("https://elsewhere.example", "j3") })
    expect(otherAud.status).toBe(401)
    const { privateKey: stranger } = await generateKeyPair("ES256")
    const forged = new SignJWT({ jti: "j4" }).setProtectedHeader({ alg: "ES256", kid: "k1" }).setIssuer("signer").setSubject("signer").setAudience("http://localhost:3000/auth/oidc").setExpirationTime("2m").sign(stranger)
    const bad = await bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", client_id: "signer", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer", client_assertion: await forged } })
    expect(bad.status).toBe(401)
  })
})

describe("token: malformed requests", () => {
  it("answers RFC 6749 errors as JSON", async () => {
    const bed = testbed()
    expect((await bed.call("/auth/oidc/token", { form: {}, headers: web })).body.error).toBe("invalid_request")
    expect((await bed.call("/auth/oidc/token", { form: { grant_type: "password" }, headers: web })).body.error).toBe("unsupported_grant_type")
    expect((await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code" }, headers: web })).body.error).toBe("invalid_request")
    expect((await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code: "nope", redirect_uri: RP }, headers: web })).body.error).toBe("invalid_grant")
  })
})

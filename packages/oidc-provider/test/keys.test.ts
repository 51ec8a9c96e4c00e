import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose"
import { afterEach, describe, expect, it, vi } from "vitest"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import { ISSUER, RP, SECRET_WEB, basic, codeFor, testbed, type Testbed } from "./support.js"

async function accessToken(bed: Testbed, who: Awaited<ReturnType<Testbed["person"]>>, params: Record<string, string> = {}) {
  const { code } = await codeFor(who, params)
  const answer = await bed.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
  expect(answer.status).toBe(200)
  return answer.body as { access_token: string; id_token: string }
}

afterEach(() => vi.useRealTimers())

describe("signing keys", () => {
  it("are generated per algorithm and stored with the private part sealed (a JWE), never in the clear", async () => {
    const store = memoryOidcProviderStore()
    const bed = testbed({ store })
    const jwks = (await bed.call("/auth/oidc/jwks")).body
    expect(jwks.keys.map((k: { alg: string }) => k.alg).sort()).toEqual(["ES256", "RS256"])
    for (const key of jwks.keys) expect(key.d).toBeUndefined()
    const stored = await store.listSigningKeys()
    expect(stored).toHaveLength(2)
    for (const key of stored) {
      expect(key.sealedPrivateJwk.split(".")).toHaveLength(5)
      expect(JSON.stringify(key)).not.toMatch(/"d":/)
    }
  })

  it("sign ID tokens with the client's registered algorithm", async () => {
    const bed = testbed({ provider: { clients: [{ clientId: "web", clientSecret: SECRET_WEB, redirectUris: [RP], idTokenSignedResponseAlg: "RS256" }] } })
    const ada = await bed.person("ada")
    const tokens = await accessToken(bed, ada)
    expect(decodeProtectedHeader(tokens.id_token).alg).toBe("RS256")
    expect(decodeProtectedHeader(tokens.access_token).alg).toBe("ES256")
  })

  it("rotate: after the interval a new key signs; tokens of the old one verify until they expire, then it leaves the JWKS", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const bed = testbed({ provider: { keyRotation: 300, keyCacheTtl: 60, ttl: { accessToken: 600, idToken: 600 } } })
    const ada = await bed.person("ada")
    const old = await accessToken(bed, ada)
    const oldKid = decodeProtectedHeader(old.access_token).kid
    vi.setSystemTime(Date.now() + 301_000)
    const fresh = await accessToken(bed, ada)
    expect(decodeProtectedHeader(fresh.access_token).kid).not.toBe(oldKid)
    const jwks = (await bed.call("/auth/oidc/jwks")).body
    expect(jwks.keys.map((k: { kid: string }) => k.kid)).toContain(oldKid)
    await jwtVerify(old.access_token, createLocalJWKSet(jwks), { issuer: ISSUER })
    expect((await bed.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${old.access_token}` } })).status).toBe(200)
    // Past the old tokens' lifetime (and the caches'): gone from the JWKS.
    vi.setSystemTime(Date.now() + 2 * 3600_000)
    const later = (await bed.call("/auth/oidc/jwks")).body
    expect(later.keys.map((k: { kid: string }) => k.kid)).not.toContain(oldKid)
  })

  it("configured private JWKs: the first of each algorithm signs, all are published", async () => {
    const { generateKeyPair, exportJWK } = await import("jose")
    const es = await exportJWK((await generateKeyPair("ES256", { extractable: true })).privateKey)
    const rs = await exportJWK((await generateKeyPair("RS256", { extractable: true })).privateKey)
    const bed = testbed({ provider: { keys: [{ ...es, kid: "es-1", alg: "ES256" }, { ...rs, kid: "rs-1", alg: "RS256" }] } })
    const jwks = (await bed.call("/auth/oidc/jwks")).body
    expect(jwks.keys.map((k: { kid: string }) => k.kid).sort()).toEqual(["es-1", "rs-1"])
    expect(JSON.stringify(jwks)).not.toMatch(/"d":/)
    const ada = await bed.person("ada")
    expect(decodeProtectedHeader((await accessToken(bed, ada)).access_token).kid).toBe("es-1")
  })
})

describe("two instances, one store", () => {
  it("generating keys at once both publish, and each verifies the other's tokens", async () => {
    const store = memoryOidcProviderStore()
    const a = testbed({ store })
    const b = testbed({ store })
    // Both instances' first requests race to create the keys.
    await Promise.all([a.call("/auth/oidc/jwks"), b.call("/auth/oidc/jwks")])
    const ada = await a.person("ada")
    const tokens = await accessToken(a, ada)
    // b shares the store but not a's users: userinfo on b finds the token valid (401 would be a key problem), then no user (401 invalid_token).
    await b.adapter.createUser!({ id: ada.id, email: ada.email, name: "Ada", emailVerified: new Date() })
    const info = await b.call("/auth/oidc/userinfo", { headers: { authorization: `Bearer ${tokens.access_token}` } })
    expect(info.status).toBe(200)
    // A code issued on a is redeemed on b, once.
    const { code } = await codeFor(ada)
    const onB = await b.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
    expect(onB.status).toBe(200)
    const onA = await a.call("/auth/oidc/token", { form: { grant_type: "authorization_code", code, redirect_uri: RP }, headers: basic("web", SECRET_WEB) })
    expect(onA.body.error).toBe("invalid_grant")
  })
})

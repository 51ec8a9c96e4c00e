import { createHmac, createPublicKey } from "node:crypto"
import { SignJWT, exportJWK, generateKeyPair, type CryptoKey } from "jose"
import { describe, expect, it } from "vitest"
import { constantTimeEqual } from "../../src/random.js"
import { CLIENTS, ISSUER, SECRET_WEB, basic, testbed, type Testbed } from "../support.js"
import { encodeJwt, refused } from "./kit.js"

const OTHER = "the-other-clients-secret-0123456789-abcdefghij"
const ASSERTION = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
const cc = { redirectUris: [], grantTypes: ["client_credentials" as const], scope: "read" }

async function keyed() {
  const mine = await generateKeyPair("ES256", { extractable: true })
  const theirs = await generateKeyPair("ES256", { extractable: true })
  const rsa = await generateKeyPair("RS256", { extractable: true })
  const jwk = { ...(await exportJWK(mine.publicKey)), kid: "k1", alg: "ES256" }
  const rsaJwk = { ...(await exportJWK(rsa.publicKey)), kid: "r1", alg: "RS256" }
  const bed = testbed({
    provider: {
      clients: [
        ...CLIENTS,
        { clientId: "other", clientSecret: OTHER, ...cc },
        { clientId: "poster", clientSecret: OTHER, tokenEndpointAuthMethod: "client_secret_post", ...cc },
        { clientId: "signer", jwks: { keys: [jwk, rsaJwk] }, ...cc },
        { clientId: "signer2", jwks: { keys: [{ ...(await exportJWK(theirs.publicKey)), kid: "k2", alg: "ES256" }] }, ...cc },
      ],
    },
  })
  let n = 0
  const sign = (claims: { iss?: string; sub?: string; aud?: string | string[]; exp?: string | number; jti?: string | null } = {}, key: CryptoKey = mine.privateKey, header: Record<string, unknown> = { alg: "ES256", kid: "k1" }) => {
    const jwt = new SignJWT(claims.jti === null ? {} : { jti: claims.jti ?? `j-${++n}-${Math.random()}` })
      .setProtectedHeader(header as never)
      .setIssuer(claims.iss ?? "signer")
      .setSubject(claims.sub ?? "signer")
      .setAudience(claims.aud ?? ISSUER)
      .setIssuedAt()
    if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp)
    else jwt.setExpirationTime("2m")
    return jwt.sign(key)
  }
  const withAssertion = (assertion: string, clientId = "signer") => bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", client_id: clientId, client_assertion_type: ASSERTION, client_assertion: assertion } })
  return { bed, sign, withAssertion, theirs, rsaJwk }
}

const cc_ = (bed: Testbed, init: { form?: Record<string, string>; headers?: Record<string, string> }) => bed.call("/auth/oidc/token", { form: { grant_type: "client_credentials", ...init.form }, ...(init.headers && { headers: init.headers }) })

/** 401 invalid_client, nothing issued, and a `clientAuthFailed` audit event naming the client. */
function refusedClient(bed: Testbed, answer: { status: number; body: any; headers: Headers }, challenge: "Basic" | null, clientId?: string) {
  refused(answer, "invalid_client", 401)
  const header = answer.headers.get("www-authenticate")
  if (challenge) expect(header).toMatch(/^Basic /)
  else expect(header).toBeNull()
  const last = bed.audit.filter((e) => e.type === "oidc.clientAuthFailed").at(-1)
  expect(last?.outcome).toBe("failure")
  if (clientId) expect(last?.details?.clientId).toBe(clientId)
}

describe("attack: client secrets", () => {
  it("another client's secret, an empty one, a prefix, a case change: refused with a Basic challenge", async () => {
    const { bed } = await keyed()
    for (const secret of [SECRET_WEB, "", OTHER.slice(0, -1), OTHER.toUpperCase(), OTHER + " ", ` ${OTHER}`]) refusedClient(bed, await cc_(bed, { headers: basic("other", secret) }), "Basic", "other")
    expect((await cc_(bed, { headers: basic("other", OTHER) })).status).toBe(200)
    expect(bed.log.lines.join("\n")).not.toContain(OTHER)
  })

  it("Basic tricks: a url-encoded colon moving the split, extra colons, missing colon, not base64, empty", async () => {
    const { bed } = await keyed()
    const raw = (s: string) => ({ authorization: `Basic ${Buffer.from(s).toString("base64")}` })
    // "other%3A<secret>" decodes to the id "other:<secret>": an unknown client, never "other".
    refusedClient(bed, await cc_(bed, { headers: raw(`other%3A${OTHER}:`) }), "Basic")
    refusedClient(bed, await cc_(bed, { headers: raw(`other:${OTHER}:x`) }), "Basic", "other")
    refusedClient(bed, await cc_(bed, { headers: raw(`other:${encodeURIComponent(OTHER)}%3A`) }), "Basic", "other")
    refusedClient(bed, await cc_(bed, { headers: raw(`other${OTHER}`) }), "Basic")
    refusedClient(bed, await cc_(bed, { headers: raw(`:${OTHER}`) }), "Basic")
    refusedClient(bed, await cc_(bed, { headers: raw(`other:%E0%A4%A`) }), "Basic")
    refusedClient(bed, await cc_(bed, { headers: { authorization: "Basic !!!notbase64" } }), "Basic")
    refusedClient(bed, await cc_(bed, { headers: { authorization: "Basic " } }), "Basic")
  })

  it("`none` for a confidential client, and switching methods (post for a basic client, Basic for a post client)", async () => {
    const { bed } = await keyed()
    refusedClient(bed, await cc_(bed, { form: { client_id: "other" } }), null, "other")
    refusedClient(bed, await cc_(bed, { form: { client_id: "other", client_secret: OTHER } }), null, "other")
    refusedClient(bed, await cc_(bed, { form: { client_id: "poster", client_secret: "" } }), null, "poster")
    refusedClient(bed, await cc_(bed, { headers: basic("poster", OTHER) }), "Basic", "poster")
    expect((await cc_(bed, { form: { client_id: "poster", client_secret: OTHER } })).status).toBe(200)
    // A public client cannot borrow a secret either way.
    refusedClient(bed, await cc_(bed, { headers: basic("native", "") }), "Basic", "native")
  })

  it("two methods at once, or Basic for one client and client_id for another, is invalid_request", async () => {
    const { bed, sign } = await keyed()
    refused(await cc_(bed, { form: { client_id: "other", client_secret: OTHER }, headers: basic("other", OTHER) }), "invalid_request")
    refused(await cc_(bed, { form: { client_id: "service" }, headers: basic("other", OTHER) }), "invalid_request")
    refused(await cc_(bed, { form: { client_id: "signer", client_assertion_type: ASSERTION, client_assertion: await sign() }, headers: basic("other", OTHER) }), "invalid_request")
  })

  it("secrets are compared as fixed-length digests, without an early exit", () => {
    // No timing assertion (the machine is shared): the compare's contract, on inputs that differ early, late and in length.
    expect(constantTimeEqual("a".repeat(64), "a".repeat(64))).toBe(true)
    expect(constantTimeEqual("b" + "a".repeat(63), "a".repeat(64))).toBe(false)
    expect(constantTimeEqual("a".repeat(63) + "b", "a".repeat(64))).toBe(false)
    expect(constantTimeEqual("a".repeat(63), "a".repeat(64))).toBe(false)
    expect(constantTimeEqual("", "")).toBe(true)
  })
})

describe("attack: private_key_jwt assertions", () => {
  it("the control: a good assertion works", async () => {
    const { withAssertion, sign } = await keyed()
    expect((await withAssertion(await sign())).status).toBe(200)
  })

  // Issue 34, found by this suite: a failed assertion was answered with a Basic challenge.
  it("alg none and HS256 keyed with the client's public key are refused, with no Basic challenge", async () => {
    const { bed, withAssertion, rsaJwk } = await keyed()
    const payload = { iss: "signer", sub: "signer", aud: ISSUER, jti: "none-1", exp: Math.floor(Date.now() / 1000) + 60 }
    refusedClient(bed, await withAssertion(encodeJwt({ alg: "none" }, payload)), null, "signer")
    const pem = createPublicKey({ key: rsaJwk as never, format: "jwk" }).export({ type: "spki", format: "pem" }) as string
    const unsigned = encodeJwt({ alg: "HS256", kid: "r1" }, { ...payload, jti: "hs-1" })
    refusedClient(bed, await withAssertion(unsigned + createHmac("sha256", pem).update(unsigned.slice(0, -1)).digest("base64url")), null, "signer")
  })

  it("a wrong audience, expired, no expiry, living too long, no jti: refused", async () => {
    const { bed, withAssertion, sign } = await keyed()
    for (const aud of ["https://evil.example", `${ISSUER}/userinfo`, "http://localhost:3000", ISSUER + "/"]) refusedClient(bed, await withAssertion(await sign({ aud })), null, "signer")
    refusedClient(bed, await withAssertion(await sign({ exp: Math.floor(Date.now() / 1000) - 120 })), null, "signer")
    refusedClient(bed, await withAssertion(await sign({ exp: "2h" })), null, "signer")
    refusedClient(bed, await withAssertion(await sign({ jti: null })), null, "signer")
  })

  it("a replayed jti is refused, including 20 at once (exactly one wins)", async () => {
    const { bed, withAssertion, sign } = await keyed()
    const assertion = await sign({ jti: "once" })
    const answers = await Promise.all(Array.from({ length: 20 }, () => withAssertion(assertion)))
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1)
    for (const a of answers.filter((a) => a.status !== 200)) refusedClient(bed, a, null)
  })

  it("iss ≠ sub, an assertion for another client, a key the client does not own, another client's key", async () => {
    const { bed, withAssertion, sign, theirs } = await keyed()
    refusedClient(bed, await withAssertion(await sign({ sub: "signer2" })), null, "signer")
    refusedClient(bed, await withAssertion(await sign({ iss: "signer2" })), null, "signer")
    refusedClient(bed, await withAssertion(await sign({ iss: "signer2", sub: "signer2" })), null, "signer")
    const stranger = await generateKeyPair("ES256")
    refusedClient(bed, await withAssertion(await sign({}, stranger.privateKey)), null, "signer")
    // signer2's own (registered) key, signing as signer, with signer2's kid or signer's.
    refusedClient(bed, await withAssertion(await sign({}, theirs.privateKey, { alg: "ES256", kid: "k2" })), null, "signer")
    refusedClient(bed, await withAssertion(await sign({}, theirs.privateKey, { alg: "ES256", kid: "k1" })), null, "signer")
    // An embedded JWK or a jku does not introduce a key.
    refusedClient(bed, await withAssertion(await sign({}, stranger.privateKey, { alg: "ES256", kid: "k1", jwk: await exportJWK(stranger.publicKey), jku: "https://evil.example/jwks" })), null, "signer")
  })

  it("a huge assertion is refused without a token: over core's body limit 413, under it 401 after the check", async () => {
    const { bed, withAssertion, sign } = await keyed()
    const [h, , s] = (await sign()).split(".")
    const padded = (size: number) => `${h}.${Buffer.from(JSON.stringify({ iss: "signer", sub: "signer", aud: ISSUER, pad: "x".repeat(size) })).toString("base64url")}.${s}`
    const over = await withAssertion(padded(2_000_000))
    expect(over.status).toBe(413)
    expect(over.body.access_token).toBeUndefined()
    refusedClient(bed, await withAssertion(padded(700_000)), null, "signer")
    refusedClient(bed, await withAssertion("a.b.c".repeat(10)), null, "signer")
  })

  it("a wrong client_assertion_type is refused", async () => {
    const { bed, sign } = await keyed()
    refusedClient(bed, await cc_(bed, { form: { client_id: "signer", client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:saml2-bearer", client_assertion: await sign() } }), null)
  })
})

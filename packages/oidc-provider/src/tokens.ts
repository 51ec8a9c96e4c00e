/**
 * The tokens the provider signs: ID tokens (OpenID Connect Core §2) and JWT access tokens
 * (RFC 9068: `typ: at+jwt`, `jti`, `client_id`, `scope`, and `gid` — the grant, so revoking
 * it ends the token), and the check of our own access tokens (userinfo, introspection).
 * @module
 */
import { SignJWT, decodeProtectedHeader, jwtVerify, type JWK, type JWTPayload } from "jose"
import type { AccessTokenClaims } from "./access-token.js"
import type { Client } from "./clients.js"
import type { SigningKey } from "./keys.js"
import type { Locals } from "./locals.js"
import { nodeCrypto, nodeSign, nodeVerify } from "./node-crypto.js"
import type { SigningAlg } from "./options.js"
import { base64url, base64urlText, fromBase64url } from "./random.js"

const decoder = new TextDecoder()

/**
 * A compact JWS of `payload`: signed with `node:crypto` on the thread pool where the runtime offers
 * it (node-crypto.ts), else with jose over WebCrypto. Both produce the same token format.
 */
async function signJwt(key: SigningKey, header: { alg: SigningAlg; kid: string; typ: string }, payload: JWTPayload): Promise<string> {
  const signingInput = `${encodedHeader(key, header)}.${base64urlText(JSON.stringify(payload))}`
  const signing = nodeSign(key, header.alg, signingInput)
  if (signing) return `${signingInput}.${base64url(await signing)}`
  return new SignJWT(payload).setProtectedHeader(header).sign(key.privateKey)
}

/** `header` as the token carries it, encoded once per key (each key signs one or two kinds of header). */
function encodedHeader(key: SigningKey, header: { alg: SigningAlg; kid: string; typ: string }): string {
  const cache = (key.encodedHeaders ??= new Map())
  const id = `${header.alg} ${header.kid} ${header.typ}`
  let encoded = cache.get(id)
  if (encoded === undefined) {
    encoded = base64urlText(JSON.stringify(header))
    cache.set(id, encoded)
  }
  return encoded
}

export type { AccessTokenClaims } from "./access-token.js"

/** The algorithm access tokens are signed with: the first configured. */
export function accessTokenAlg(locals: Locals): SigningAlg {
  return locals.options.signingAlgs[0]!
}

/** Signs an access token for `aud` (the resources asked for, else the default audience). */
export async function signAccessToken(locals: Locals, issuer: string, input: { sub: string; clientId: string; scope: string; audience: string[]; grantId: string; authTime?: number }): Promise<{ token: string; claims: AccessTokenClaims }> {
  const key = await locals.keys.signingKey(accessTokenAlg(locals))
  const now = Math.floor(Date.now() / 1000)
  const claims: AccessTokenClaims = {
    iss: issuer,
    sub: input.sub,
    aud: input.audience.length === 1 ? input.audience[0]! : input.audience,
    exp: now + locals.options.ttl.accessToken,
    iat: now,
    jti: locals.random.token(16),
    client_id: input.clientId,
    scope: input.scope,
    gid: input.grantId,
    ...(input.authTime !== undefined && { auth_time: input.authTime }),
  }
  const token = await signJwt(key, { alg: key.alg, kid: key.kid, typ: "at+jwt" }, claims)
  return { token, claims }
}

/** `at_hash`: the left half of the access token's hash (OpenID Connect Core §3.1.3.6). */
async function halfHash(value: string, alg: SigningAlg): Promise<string> {
  if (nodeCrypto) {
    const name = alg === "EdDSA" ? "sha512" : "sha256"
    // The one-shot digest where offered: no Hash object per token.
    const digest = nodeCrypto.hash ? nodeCrypto.hash(name, value, "buffer") : nodeCrypto.createHash(name).update(value).digest()
    return base64url(digest.subarray(0, digest.length / 2))
  }
  const digest = new Uint8Array(await crypto.subtle.digest(alg === "EdDSA" ? "SHA-512" : "SHA-256", new TextEncoder().encode(value)))
  return base64url(digest.slice(0, digest.length / 2))
}

/**
 * The ID token's own claims (OpenID Connect Core §2, RFC 7519 §4.1): the provider sets them,
 * or leaves them out. Several are added only when present (`nonce`, `at_hash`, `auth_time`,
 * `sid`), so an app's `claims()` naming one would otherwise stand in for the provider's —
 * a `nonce` a relying party would accept, an `auth_time` that passes its `max_age` check.
 */
const PROTECTED_ID_TOKEN_CLAIMS = new Set(["iss", "sub", "aud", "exp", "iat", "nbf", "jti", "azp", "nonce", "at_hash", "c_hash", "s_hash", "auth_time", "sid"])

function withoutProtected(claims: Record<string, unknown> | undefined): Record<string, unknown> {
  return Object.fromEntries(Object.entries(claims ?? {}).filter(([name]) => !PROTECTED_ID_TOKEN_CLAIMS.has(name)))
}

/** Signs an ID token for `client`, with the algorithm it registered. */
export async function signIdToken(
  locals: Locals,
  issuer: string,
  client: Client,
  input: { sub: string; nonce?: string; authTime?: number; accessToken?: string; claims?: Record<string, unknown>; sid?: string },
): Promise<string> {
  const alg = client.idTokenAlg ?? locals.options.signingAlgs[0]!
  const key = await locals.keys.signingKey(alg)
  const now = Math.floor(Date.now() / 1000)
  const payload: JWTPayload = {
    ...withoutProtected(input.claims),
    iss: issuer,
    sub: input.sub,
    aud: client.clientId,
    // One audience: azp is optional then, but harmless and what some RPs check.
    azp: client.clientId,
    exp: now + locals.options.ttl.idToken,
    iat: now,
    ...(input.authTime !== undefined && { auth_time: input.authTime }),
    ...(input.nonce !== undefined && { nonce: input.nonce }),
    ...(input.accessToken !== undefined && { at_hash: await halfHash(input.accessToken, alg) }),
    ...(input.sid !== undefined && { sid: input.sid }),
  }
  return signJwt(key, { alg, kid: key.kid, typ: "JWT" }, payload)
}

/**
 * How many verified access tokens one configuration remembers (about 1 KB each): enough for
 * the tokens in use at once by a busy provider's clients; past it the oldest is dropped and
 * is verified again when it comes back.
 */
export const VERIFIED_ACCESS_TOKENS = 10_000

/**
 * Our own access token's claims when its signature, type, issuer and expiry hold; else `null`
 * (revocation is the caller's check). A token verified before skips the signature check (an
 * ECDSA verification is most of userinfo's work): the very same string verified under a key
 * still in the ring — its expiry and issuer are checked again every time.
 */
export async function verifyOwnAccessToken(locals: Locals, issuer: string, token: string): Promise<AccessTokenClaims | null> {
  const remembered = locals.verifiedAccessTokens.get(token)
  if (remembered) {
    if (remembered.claims.iss === issuer && remembered.claims.exp > Math.floor(Date.now() / 1000) && (locals.keys.knows(remembered.kid) ?? (await locals.keys.publicKey(remembered.kid)))) return remembered.claims
    locals.verifiedAccessTokens.delete(token)
  }
  try {
    const header = decodeProtectedHeader(token)
    if (header.typ !== "at+jwt" || typeof header.kid !== "string") return null
    const key = await locals.keys.publicKey(header.kid)
    if (!key) return null
    const fast = verifyAccessTokenSync(token, key, issuer)
    const payload = fast !== undefined ? fast : (await jwtVerify(token, key.key, { issuer, typ: "at+jwt", algorithms: [key.alg], requiredClaims: ["jti", "exp", "sub", "client_id"] })).payload
    if (!payload || typeof payload.gid !== "string") return null
    const claims = Object.freeze(payload) as AccessTokenClaims
    const cache = locals.verifiedAccessTokens
    if (cache.size >= VERIFIED_ACCESS_TOKENS) cache.delete(cache.keys().next().value!)
    cache.set(token, { claims, kid: header.kid })
    return claims
  } catch {
    return null
  }
}

/**
 * `verifyOwnAccessToken`'s checks with a synchronous `node:crypto` signature check: the same
 * ones jose's `jwtVerify` makes with the options above (the algorithm the key is for, no
 * `crit`, `typ: at+jwt`, the issuer, `exp` in the future, `nbf` not, numeric dates, the
 * required claims). `null`: refused; `undefined`: node:crypto is not offered here.
 */
function verifyAccessTokenSync(token: string, key: { alg: SigningAlg; jwk: JWK; nodeKey?: unknown }, issuer: string): JWTPayload | null | undefined {
  if (!nodeCrypto) return undefined
  const parts = token.split(".")
  if (parts.length !== 3) return null
  const headerBytes = fromBase64url(parts[0]!)
  const payloadBytes = fromBase64url(parts[1]!)
  const signature = fromBase64url(parts[2]!)
  if (!headerBytes || !payloadBytes || !signature) return null
  const header = JSON.parse(decoder.decode(headerBytes)) as Record<string, unknown>
  if (header.alg !== key.alg || header.typ !== "at+jwt" || "crit" in header || "b64" in header) return null
  if (nodeVerify(key, key.alg, `${parts[0]}.${parts[1]}`, signature) !== true) return null
  const payload = JSON.parse(decoder.decode(payloadBytes)) as unknown
  if (!payload || typeof payload !== "object" || Array.isArray(payload)) return null
  const claims = payload as JWTPayload & Record<string, unknown>
  const now = Math.floor(Date.now() / 1000)
  if (claims.iss !== issuer) return null
  if (typeof claims.exp !== "number" || claims.exp <= now) return null
  if (claims.nbf !== undefined && (typeof claims.nbf !== "number" || claims.nbf > now)) return null
  if (claims.iat !== undefined && typeof claims.iat !== "number") return null
  for (const name of ["jti", "sub", "client_id"]) if (claims[name] === undefined) return null
  return claims
}

/** Verifies an ID token we issued (RP-initiated logout's `id_token_hint`; it may have expired). */
export async function verifyOwnIdToken(locals: Locals, issuer: string, token: string): Promise<JWTPayload | null> {
  try {
    const header = decodeProtectedHeader(token)
    if (typeof header.kid !== "string" || header.typ === "at+jwt") return null
    const key = await locals.keys.publicKey(header.kid)
    if (!key) return null
    // An expired hint still names the session (OpenID RP-Initiated Logout §2): the clock is set before any expiry.
    const { payload } = await jwtVerify(token, key.key, { issuer, algorithms: [key.alg], currentDate: new Date(0) })
    return payload
  } catch {
    return null
  }
}

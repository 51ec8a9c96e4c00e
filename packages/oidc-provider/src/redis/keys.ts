/**
 * The Redis key layout of the OpenID Provider store.
 *
 * Hash tags (what Redis Cluster hashes to pick a slot) are chosen by which keys a Lua script
 * must change together:
 * - `{op:grants}` — grants, codes, refresh tokens, consents, their user and session indexes,
 *   device requests and their user codes. A code or a refresh token is looked up by its hash
 *   alone and must be checked against its grant in the same step, and a user's revocation
 *   reaches all of that user's grants: no per-grant tag can be computed from what the calls
 *   are given, so these share one tag per store (one slot). A store that outgrows one slot
 *   runs several prefixes.
 * - `{op:clients}` — a client and the set of dynamic ones (counted for the registration limit).
 * - `{op:keys}` — the signing keys and their set.
 * - Interactions and revoked access-token ids are single keys: no tag.
 *
 * Every free-form part is URI-encoded: it cannot close a hash tag early (`}`) or run into
 * the next part (`:`).
 * @module
 */

const e = encodeURIComponent

/**
 * Key builders under `prefix`.
 *
 * @example
 * ```ts
 * const keys = oidcProviderRedisKeys("myapp:op:")
 * keys.grant("g1") // "myapp:op:{op:grants}:grant:g1"
 * ```
 */
export function oidcProviderRedisKeys(prefix: string) {
  const grants = `${prefix}{op:grants}:`
  const clients = `${prefix}{op:clients}:`
  const keys = `${prefix}{op:keys}:`
  return {
    /** What a grant's key starts with (scripts append the encoded id). */
    grantPrefix: `${grants}grant:`,
    /** Hash: json, clientId, userId, sessionKey. Deleted when revoked; expires with the grant. */
    grant: (id: string) => `${grants}grant:${e(id)}`,
    /** Set of a user's grant ids (checked against the grants on read). */
    userGrants: (userId: string) => `${grants}user-grants:${e(userId)}`,
    /** Set of the grant ids made through one session. */
    sessionGrants: (sessionKey: string) => `${grants}session-grants:${e(sessionKey)}`,
    /** Hash: json, grantId, used (0/1). Expires with the code. */
    code: (codeHash: string) => `${grants}code:${e(codeHash)}`,
    /** Hash: json, grantId, rotated (0/1). Kept after rotation until it expires, to see reuse. */
    refreshToken: (tokenHash: string) => `${grants}refresh:${e(tokenHash)}`,
    /** Hash: scope, resources (JSON), createdAt, updatedAt (ms). */
    consent: (userId: string, clientId: string) => `${grants}consent:${e(userId)}:${e(clientId)}`,
    /** Set of the client ids a user consented to. */
    userConsents: (userId: string) => `${grants}user-consents:${e(userId)}`,
    /** What a device request's key starts with. */
    devicePrefix: `${grants}device:`,
    /** Hash: json (client, scope, resources, user code), status, interval, lastPolledAt, userId, authTime, grantId, handedOut, expiresAt. */
    device: (deviceCodeHash: string) => `${grants}device:${e(deviceCodeHash)}`,
    /** The device code hash of a user code. */
    userCode: (userCode: string) => `${grants}user-code:${e(userCode)}`,
    /** Hash: json, dynamic (0/1). */
    client: (clientId: string) => `${clients}client:${e(clientId)}`,
    /** Set of the dynamic clients' ids. */
    dynamicClients: `${clients}dynamic`,
    /** What a signing key's key starts with. */
    signingKeyPrefix: `${keys}key:`,
    /** Hash: json (without the dates that change), retiredAt, expiresAt (ms or empty). */
    signingKey: (kid: string) => `${keys}key:${e(kid)}`,
    /** Set of the kids. */
    signingKeys: `${keys}kids`,
    /** A parked authorization request; expires with it. */
    interaction: (id: string) => `${prefix}interaction:${e(id)}`,
    /** Present while a revoked access token's `jti` could still be presented. */
    revokedAccessToken: (jti: string) => `${prefix}revoked-jti:${e(jti)}`,
    /** `useOnce` marks (SET NX with the mark's TTL). */
    usedKey: (key: string) => `${prefix}used:${e(key)}`,
  }
}

export type OidcProviderRedisKeys = ReturnType<typeof oidcProviderRedisKeys>

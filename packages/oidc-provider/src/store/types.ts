/**
 * What the OpenID Provider keeps, and the store contract every backend (memory, SQL, Redis)
 * implements. Everything single-use — an authorization code, a refresh token, a device
 * code's approval, an interaction — is consumed by the store in one atomic step (a
 * transaction, a Lua script), so it holds across instances and under concurrent requests:
 * the extension never reads first and writes after.
 *
 * Secrets never reach the store: codes, tokens, client secrets and registration access
 * tokens are kept as SHA-256 hashes (hex) of high-entropy random values, looked up by hash.
 * @module
 */

/** The grant types a client may use. */
export type GrantType = "authorization_code" | "refresh_token" | "client_credentials" | "urn:ietf:params:oauth:grant-type:device_code"

/** How a client proves itself at the token, revocation and introspection endpoints. */
export type ClientAuthMethod = "client_secret_basic" | "client_secret_post" | "private_key_jwt" | "none"

/** A registered client (static from the configuration, or registered through RFC 7591). */
export interface OAuthClient {
  clientId: string
  /** SHA-256 (hex) of the client secret; absent for public and `private_key_jwt` clients. */
  secretHash?: string
  /** When the secret stops working (RFC 7591 `client_secret_expires_at`); absent: never. */
  secretExpiresAt?: Date
  tokenEndpointAuthMethod: ClientAuthMethod
  /** Exact match only (no prefixes, no wildcards); loopback redirect URIs of native clients may vary the port (RFC 8252 §7.3). */
  redirectUris: string[]
  postLogoutRedirectUris: string[]
  grantTypes: GrantType[]
  /** The scopes the client may ask for, space-separated. */
  scope: string
  /** The resources (RFC 8707) the client may ask tokens for; absent: the configuration's default resources. */
  resources?: string[]
  /** `private_key_jwt`: the client's public keys, inline or by URL. */
  jwks?: { keys: Record<string, unknown>[] }
  jwksUri?: string
  name?: string
  logoUri?: string
  clientUri?: string
  policyUri?: string
  tosUri?: string
  /** A first-party client skips the consent page (the app's own CLI, its other apps). Never true for dynamically registered clients. */
  firstParty?: boolean
  /** Registered through dynamic registration (RFC 7591), with the limits that come with it. */
  dynamic: boolean
  /** SHA-256 (hex) of the registration access token (RFC 7592 read/delete), for dynamic clients. */
  registrationTokenHash?: string
  createdAt: Date
}

/**
 * One authorization: a user letting a client act with some scopes. Every code, refresh token
 * and access token issued under it names its `id`; revoking the grant ends them all (code
 * replay, refresh-token reuse, logout, the user revoking the app).
 */
export interface Grant {
  id: string
  clientId: string
  /** Absent for `client_credentials` grants (the client acts for itself). */
  userId?: string
  scope: string
  /** RFC 8707 resources (audiences) the grant's tokens may name. */
  resources: string[]
  /** When the user authenticated (seconds since the epoch), for `auth_time`. */
  authTime?: number
  /** The core session key (for this extension) of the session that authorized it: ended with the session at RP-initiated logout. */
  sessionKey?: string
  createdAt: Date
  expiresAt: Date
}

/** An authorization code, stored under the hash of the code. */
export interface AuthorizationCode {
  codeHash: string
  grantId: string
  clientId: string
  userId: string
  redirectUri: string
  scope: string
  resources: string[]
  nonce?: string
  /** PKCE (RFC 7636): always S256 here; `plain` is refused at `authorize`. */
  codeChallenge?: string
  authTime?: number
  /** Extra claims the `claims` request parameter asked for, kept as JSON. */
  claims?: string
  expiresAt: Date
}

/** What {@link OidcProviderStore.takeCode} found. */
export type CodeTake =
  | { status: "taken"; code: AuthorizationCode }
  /** A replay: the code was redeemed before. The caller revokes `code.grantId` (RFC 6749 §4.1.2). */
  | { status: "replayed"; code: AuthorizationCode }
  | { status: "missing" }

/** A refresh token, stored under its hash; tokens rotated from one another share `familyId` (= the grant's id). */
export interface RefreshToken {
  tokenHash: string
  grantId: string
  clientId: string
  userId?: string
  scope: string
  resources: string[]
  authTime?: number
  expiresAt: Date
}

/** What {@link OidcProviderStore.rotateRefreshToken} did. */
export type RefreshRotation =
  | { status: "rotated"; previous: RefreshToken }
  /** The token was already rotated: the store revoked the whole grant (every token of the family) in the same step. */
  | { status: "reused"; previous: RefreshToken }
  | { status: "missing" }

/** A remembered consent: what a user allowed a client, so the consent page is not shown again for those scopes. */
export interface Consent {
  userId: string
  clientId: string
  scope: string
  resources: string[]
  createdAt: Date
  updatedAt: Date
}

/** A device authorization request (RFC 8628), stored under the device code's hash and findable by its user code. */
export interface DeviceAuthorization {
  deviceCodeHash: string
  /** Normalized (upper case, no dash): `WDJBMJHT`. */
  userCode: string
  clientId: string
  scope: string
  resources: string[]
  status: "pending" | "approved" | "denied"
  /** Set on approval. */
  userId?: string
  authTime?: number
  grantId?: string
  /** Seconds between polls; raised by 5 on each `slow_down`. */
  interval: number
  lastPolledAt?: Date
  expiresAt: Date
}

/** What {@link OidcProviderStore.pollDevice} answered the device. */
export type DevicePoll =
  | { status: "pending" }
  | { status: "slow_down" }
  | { status: "denied" }
  /** Approved: handed out once; later polls are `missing`. */
  | { status: "approved"; device: DeviceAuthorization }
  | { status: "missing" }

/** A signing key of the provider, private part sealed by the extension before it reaches the store. */
export interface StoredSigningKey {
  kid: string
  alg: "ES256" | "RS256" | "EdDSA" | "PS256"
  /** The public JWK, published in the JWKS. */
  publicJwk: Record<string, unknown>
  /** The private JWK, encrypted (JWE) under a key derived from the configuration's secret. */
  sealedPrivateJwk: string
  createdAt: Date
  /** When it stops signing (a newer key took over); still published until `expiresAt`. */
  retiredAt?: Date
  /** When it leaves the JWKS (tokens it signed have expired). */
  expiresAt?: Date
}

/**
 * The store contract. Every method is one atomic step of the backend; `Date`s in, `Date`s
 * out. Expired records may linger (a sweep, or the backend's own expiry) but are never
 * returned as valid.
 */
export interface OidcProviderStore {
  // Clients registered at run time (dynamic registration); static clients live in the configuration.
  createClient(client: OAuthClient): Promise<void>
  getClient(clientId: string): Promise<OAuthClient | null>
  /** `false` when there was none. */
  deleteClient(clientId: string): Promise<boolean>
  /** How many dynamic clients exist (the registration limit). */
  countDynamicClients(): Promise<number>

  createGrant(grant: Grant): Promise<void>
  /** The grant when it exists, is not revoked and has not expired. */
  getGrant(id: string): Promise<Grant | null>
  /** Ends the grant and every code, refresh token and access token under it. `false` when there was none. */
  revokeGrant(id: string): Promise<boolean>
  /** The active grants a user gave `clientId` (all clients when absent). */
  listGrants(userId: string, clientId?: string): Promise<Grant[]>
  /** Revokes every grant of the user for the client; returns how many. */
  revokeGrantsOf(userId: string, clientId: string): Promise<number>
  /** Revokes the grants made through the session with this key (RP-initiated logout); returns how many. */
  revokeGrantsOfSession(sessionKey: string): Promise<number>

  saveCode(code: AuthorizationCode): Promise<void>
  /** Redeems a code once: the first call gets `taken`, every later one `replayed` (until the code's expiry), an unknown or expired one `missing`. */
  takeCode(codeHash: string): Promise<CodeTake>

  saveRefreshToken(token: RefreshToken): Promise<void>
  /**
   * Rotates `tokenHash` to `next` in one step: a current token of an active grant → `rotated`
   * (the old one can never rotate again, `next` is saved); a token already rotated → `reused`,
   * and the grant is revoked in the same step (RFC 9700 §4.14.2); unknown, expired or of a
   * revoked grant → `missing`.
   */
  rotateRefreshToken(tokenHash: string, next: RefreshToken): Promise<RefreshRotation>
  /** The token when current (not rotated, grant active, not expired): for revocation and introspection. */
  getRefreshToken(tokenHash: string): Promise<RefreshToken | null>

  /** Marks an access token's `jti` revoked until `expiresAt` (RFC 7009 for JWT access tokens). */
  revokeAccessToken(jti: string, expiresAt: Date): Promise<void>
  accessTokenRevoked(jti: string): Promise<boolean>

  /** Adds the scopes and resources to what the user allowed the client (a union), creating the record when there is none. */
  saveConsent(consent: Consent): Promise<void>
  getConsent(userId: string, clientId: string): Promise<Consent | null>
  listConsents(userId: string): Promise<Consent[]>
  /** Forgets the consent and revokes the user's grants for the client; `false` when there was none. */
  revokeConsent(userId: string, clientId: string): Promise<boolean>

  createDevice(device: DeviceAuthorization): Promise<void>
  /** The pending request for a user code (normalized), or `null` (unknown, expired, decided). */
  findDeviceByUserCode(userCode: string): Promise<DeviceAuthorization | null>
  /** Approves or denies a pending request once; `false` when it was not pending (decided, expired, unknown). */
  decideDevice(userCode: string, decision: { status: "approved"; userId: string; authTime?: number; grantId: string } | { status: "denied" }): Promise<boolean>
  /** A poll of the device code at `now`: too soon after the last one → `slow_down` (and the interval grows by 5 s); approved → handed out once. */
  pollDevice(deviceCodeHash: string, now: Date): Promise<DevicePoll>

  /**
   * Marks `key` used until `expiresAt`, once: `true` for the first call, `false` for every
   * later one until then (a `private_key_jwt` assertion's `jti`, RFC 7523 §3). One atomic
   * insert-if-absent (a unique key, `SET NX`).
   */
  useOnce(key: string, expiresAt: Date): Promise<boolean>

  /** Parks an authorization request while the user signs in or consents; taken once. */
  putInteraction(id: string, value: string, expiresAt: Date): Promise<void>
  takeInteraction(id: string): Promise<string | null>
  /** Reads without taking (the consent page shown again after a refresh). */
  getInteraction(id: string): Promise<string | null>

  listSigningKeys(): Promise<StoredSigningKey[]>
  addSigningKey(key: StoredSigningKey): Promise<void>
  /** Sets `retiredAt`/`expiresAt` on a key; removing it is setting an `expiresAt` in the past. */
  updateSigningKey(kid: string, patch: { retiredAt?: Date; expiresAt?: Date }): Promise<void>
}

/**
 * What enterprise SSO keeps, and the store contract every backend (memory, SQL, Redis)
 * implements. Everything single-use — a SAML assertion's ID, an authentication request's ID
 * (`InResponseTo`), a sign-in's state — is consumed by the store in one atomic step, so it
 * holds across instances and under concurrent requests; the extension never reads first
 * and writes after.
 * @module
 */

/** A role rule: when the IdP's `claim` (an OIDC claim or a SAML attribute, a list counts as any of its values) matches, the member gets `role`. */
export interface RoleRule {
  /** The claim or attribute name (`groups`, `department`, `http://schemas.microsoft.com/ws/2008/06/identity/claims/groups`). */
  claim: string
  /** Matches when the claim equals this value, or a list claim contains it (case-sensitive, as IdPs send group ids). */
  value: string
  /** The organization role given. */
  role: string
}

/** How an OpenID Connect connection talks to its IdP. */
export interface OidcConnectionSettings {
  /** The IdP's issuer; its discovery document is `<issuer>/.well-known/openid-configuration`. */
  issuer: string
  clientId: string
  /** Absent for a public client (PKCE only). Kept as given: the store is the secret's home, protect it as the adapter's. */
  clientSecret?: string
  /** Space-separated; `openid email profile` when absent. */
  scope?: string
}

/** How a SAML 2.0 connection trusts its IdP (the IdP's metadata, parsed, or given field by field). */
export interface SamlConnectionSettings {
  /** The IdP's entity ID (the `Issuer` its responses must carry). */
  idpEntityId: string
  /** The IdP's single sign-on URL (HTTP-Redirect binding). */
  ssoUrl: string
  /** The IdP's single logout URL, when single logout is on. */
  sloUrl?: string
  /** The IdP's signing certificates (PEM or bare base64); two at once during a rollover. */
  certificates: string[]
  /** Where the metadata came from, to refresh it (`refreshMetadata`). */
  metadataUrl?: string
  /** Accept an unsolicited response (IdP-initiated sign-in). Default `false`: every response must answer a request this app made. */
  allowIdpInitiated?: boolean
  /** Ask the IdP to encrypt assertions to this connection's key (published in the SP metadata). */
  encryptAssertions?: boolean
  /** Accept SHA-1 signatures. Default `false` (SHA-256 and stronger only). */
  allowSha1?: boolean
}

/** One organization's way in through its own identity provider. */
export interface Connection {
  /** Random, URL-safe; names the connection's routes (`/auth/sso/saml/<id>/acs`). */
  id: string
  organizationId: string
  kind: "oidc" | "saml"
  /** Shown on the sign-in page ("Continue with Acme Okta"). */
  name: string
  enabled: boolean
  oidc?: OidcConnectionSettings
  saml?: SamlConnectionSettings
  /** The SP's own key pair for this connection (PEM): decrypts encrypted assertions and signs requests. */
  spKey?: { privateKey: string; certificate: string }
  /** First match wins; none matching gives `defaultRole`. */
  roleRules: RoleRule[]
  /** The role of a member no rule matched. Default `"member"`. */
  defaultRole: string
  createdAt: Date
}

/** An email domain an organization claims. */
export interface Domain {
  /** Lowercase, without a trailing dot (`acme.com`). */
  domain: string
  organizationId: string
  /** The value of the TXT record that proves the claim (`portcullis-verification=<token>`). */
  token: string
  verifiedAt: Date | null
  /** When verified: password and email-link sign-ins of this domain's addresses are refused (SSO only). */
  requireSso: boolean
  /** The connection the sign-in page sends this domain's addresses to; the organization's first enabled one when absent. */
  connectionId: string | null
  createdAt: Date
}

/** A SCIM bearer token, as stored: only its hash. */
export interface ScimToken {
  id: string
  connectionId: string
  organizationId: string
  /** SHA-256 of the token, hex. */
  hash: string
  createdAt: Date
  lastUsedAt: Date | null
}

/** A user as a SCIM client provisioned them into an organization. */
export interface ScimUser {
  /** The SCIM resource id: the Portcullis user id. */
  id: string
  organizationId: string
  /** The client's own id for the user. */
  externalId: string | null
  userName: string
  active: boolean
  /** The resource's other attributes as the client last set them (name, emails, …), JSON. */
  attributes: Record<string, unknown>
  /** Bumped on every change: the ETag (`W/"<version>"`). */
  version: number
  createdAt: Date
  updatedAt: Date
}

/** A SCIM group of an organization. */
export interface ScimGroup {
  id: string
  organizationId: string
  externalId: string | null
  displayName: string
  /** Member user ids. */
  members: string[]
  version: number
  createdAt: Date
  updatedAt: Date
}

/** The store contract of `@portcullis/sso`. */
export interface SsoStore {
  // Connections
  createConnection(connection: Connection): Promise<void>
  getConnection(id: string): Promise<Connection | null>
  listConnections(organizationId: string): Promise<Connection[]>
  /** Replaces the connection (same id and organization); `false` when it does not exist. */
  updateConnection(connection: Connection): Promise<boolean>
  /** Deletes the connection, its SCIM tokens, and unlinks domains routed to it. */
  deleteConnection(id: string): Promise<void>

  // Domains: one organization per domain, claimed first-come until verified; a verified claim is never taken over.
  /** Claims `domain` for the organization: `"claimed"`, `"taken"` (another organization verified it). A pending claim of another organization is kept beside it (each proves its own token). */
  claimDomain(domain: Domain): Promise<"claimed" | "taken">
  /** The organization's claim of `domain`, or — without `organizationId` — the verified claim of it. */
  getDomain(domain: string, organizationId?: string): Promise<Domain | null>
  listDomains(organizationId: string): Promise<Domain[]>
  /** Marks the organization's claim verified; `"taken"` when another organization verified it first (atomic). */
  verifyDomain(domain: string, organizationId: string, at: Date): Promise<"verified" | "taken" | "missing">
  updateDomain(domain: string, organizationId: string, patch: { requireSso?: boolean; connectionId?: string | null }): Promise<boolean>
  removeDomain(domain: string, organizationId: string): Promise<void>

  // SCIM tokens
  addScimToken(token: ScimToken): Promise<void>
  findScimToken(hash: string): Promise<ScimToken | null>
  listScimTokens(connectionId: string): Promise<ScimToken[]>
  revokeScimToken(id: string): Promise<void>
  touchScimToken(id: string, at: Date): Promise<void>

  // SCIM resources
  /** Inserts the user's SCIM record; `false` when the organization already has one for this user or userName. */
  createScimUser(user: ScimUser): Promise<boolean>
  getScimUser(organizationId: string, id: string): Promise<ScimUser | null>
  findScimUser(organizationId: string, by: { userName?: string; externalId?: string }): Promise<ScimUser | null>
  /** Every SCIM user of the organization, ordered by `createdAt` then id (SCIM pagination is by index). */
  listScimUsers(organizationId: string): Promise<ScimUser[]>
  /** Replaces the record when `expectedVersion` is its version (or absent); the new record, `"conflict"`, or `null` when missing. */
  updateScimUser(user: ScimUser, expectedVersion?: number): Promise<ScimUser | "conflict" | null>
  deleteScimUser(organizationId: string, id: string): Promise<boolean>
  createScimGroup(group: ScimGroup): Promise<boolean>
  getScimGroup(organizationId: string, id: string): Promise<ScimGroup | null>
  listScimGroups(organizationId: string): Promise<ScimGroup[]>
  updateScimGroup(group: ScimGroup, expectedVersion?: number): Promise<ScimGroup | "conflict" | null>
  deleteScimGroup(organizationId: string, id: string): Promise<boolean>

  // Single use
  /**
   * Records `id` under `namespace` until `expires`; `true` the first time, `false` when it was
   * already recorded (a replayed SAML assertion ID). One atomic step.
   */
  useOnce(namespace: string, id: string, expires: Date): Promise<boolean>
  /** Keeps `value` under `id` until `expires` (a pending authentication request). */
  put(namespace: string, id: string, value: string, expires: Date): Promise<void>
  /** Takes the value kept under `id` and deletes it in one atomic step; `null` when absent, expired or already taken. */
  take(namespace: string, id: string): Promise<string | null>

  // Sessions that signed in through SSO
  /** Remembers that the session `key` (the extension's session key) signed in through the organization's connection. */
  recordSession(key: string, userId: string, organizationId: string, expires: Date): Promise<void>
  /** Ends the user's SSO sessions of the organization: their keys count as ended until they expire. How many. */
  endSessions(userId: string, organizationId: string): Promise<number>
  /** Whether `key` was ended by {@link endSessions}. */
  sessionEnded(key: string): Promise<boolean>
}

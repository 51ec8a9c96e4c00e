/**
 * The provider's options: their types, and their checks at setup (an `InvalidConfig` naming
 * the option, or the client and the field, that is wrong).
 * @module
 */
import { InvalidConfig } from "@portcullis/core/extension"
import type { ClientAuthMethod, GrantType, OAuthClient, OidcProviderStore } from "./store/types.js"
import { resolveRegistration, type RegistrationOptions, type RegistrationPolicy } from "./registration/options.js"

/** The signing algorithms the provider can sign ID tokens and access tokens with. */
export type SigningAlg = "ES256" | "RS256" | "PS256" | "EdDSA"

/** A client written in the configuration. */
export interface StaticClientOptions {
  clientId: string
  /** The secret in plain text: hashed (SHA-256) at setup and never kept. At least 32 characters. */
  clientSecret?: string
  /** Or the secret's SHA-256 (hex), so the configuration never holds it. */
  clientSecretHash?: string
  /** Default: `client_secret_basic` with a secret, `private_key_jwt` with keys, else `none` (public). */
  tokenEndpointAuthMethod?: ClientAuthMethod
  redirectUris: string[]
  postLogoutRedirectUris?: string[]
  /** Default `["authorization_code", "refresh_token"]`. */
  grantTypes?: GrantType[]
  /** The scopes it may ask for; default every configured scope. */
  scope?: string
  /** RFC 8707 resources it may ask tokens for; default the configuration's `resources`. */
  resources?: string[]
  /**
   * The resources (RFC 8707 URIs) this client *is* the resource server for: `introspect`
   * shows it the access tokens whose audience names one of them, whoever they were issued
   * to. Default none: a client sees only its own tokens. Separate from `resources` (what a
   * client may ask tokens *for*), so a relying party allowed to call an API cannot read
   * other clients' tokens for it.
   */
  serves?: string[]
  jwks?: { keys: Record<string, unknown>[] }
  jwksUri?: string
  name?: string
  logoUri?: string
  clientUri?: string
  policyUri?: string
  tosUri?: string
  /** Skips the consent page (your own apps). */
  firstParty?: boolean
  /** The algorithm of its ID tokens; default the first of `signingAlgs`. */
  idTokenSignedResponseAlg?: SigningAlg
}

/**
 * A client of the configuration as checked: the stored shape, with what only a configured
 * client has (`clients.ts`'s `Client` is this).
 */
export type ConfiguredClient = OAuthClient & { idTokenAlg?: SigningAlg; serves?: string[] }

/** A user as the claims are built from. */
export interface ClaimsUser {
  id: string
  email?: string | null
  emailVerified?: Date | null
  name?: string | null
}

/** The slice of `@portcullis/organizations`' store the provider reads for the `organization` scope. */
export interface OrganizationsReader {
  listOrganizations(userId: string): Promise<Array<{ organization: { id: string; slug?: string; name?: string }; role: string }>>
}

/** Per-route limits; `false` turns one off. */
export interface OidcRateLimits {
  authorize?: { max: number; window: number } | false
  token?: { max: number; window: number } | false
  userinfo?: { max: number; window: number } | false
  introspect?: { max: number; window: number } | false
  revoke?: { max: number; window: number } | false
  /** The device grant's code-entry page: every post counts, per address and per user (guessing user codes). */
  device?: { max: number; window: number } | false
}

/** The options of {@link oidcProvider}. */
export interface OidcProviderOptions {
  store: OidcProviderStore
  /** The issuer (`https://app.example/auth/oidc`). Default: `<authUrl>/oidc`, allowed only from a trusted origin outside development. */
  issuer?: string
  clients?: StaticClientOptions[]
  /** Extra scopes beyond `openid profile email offline_access` (and `organization` with `organizations`). */
  scopes?: string[]
  /** Resources (RFC 8707) every client may ask for, and the default audience when none is asked. */
  resources?: string[]
  /** The default `aud` of access tokens when no `resource` is asked: default the issuer. */
  defaultAudience?: string
  /** Algorithms to keep keys for; the first signs by default. Default `["ES256", "RS256"]`. */
  signingAlgs?: SigningAlg[]
  /** Private JWKs to sign with (each with `kid` and `alg`), instead of generated and stored keys. */
  keys?: Record<string, unknown>[]
  /** Seconds after which a generated key is replaced by a new one. Default 30 days. */
  keyRotation?: number
  /** Seconds an instance trusts its copy of the stored keys. Default 60. */
  keyCacheTtl?: number
  /** Lifetimes in seconds. */
  ttl?: { code?: number; accessToken?: number; idToken?: number; refreshToken?: number; grant?: number; interaction?: number }
  /** Who gets refresh tokens: `"offline_access"` (default: only when the scope is asked and allowed) or `"always"` (every code exchange). */
  refreshTokens?: "offline_access" | "always"
  /** The organizations store: the `organization` scope adds `organizations: [{ id, slug, role }]`. */
  organizations?: OrganizationsReader
  /** Adds or overrides claims (userinfo and ID token) for the scopes granted; never `sub`, `iss`, `aud`, nor an ID token's own claims (`nonce`, `auth_time`, `at_hash`, `azp`, `sid`, `exp`, ...), which stay the provider's. */
  claims?: (user: ClaimsUser, scopes: string[]) => Record<string, unknown> | Promise<Record<string, unknown>>
  /** Per-route rate limits; `false` turns all off (benchmarks). */
  rateLimit?: OidcRateLimits | false
  /** Seconds of clock skew tolerated on client assertions. Default 30. */
  clockSkew?: number
  /** Development mode: an issuer from an untrusted origin is allowed. Default `NODE_ENV !== "production"`. */
  development?: boolean
  /** Dynamic client registration (RFC 7591): off by default; `{ initialAccessToken }` or `{ open: true, … }` (docs/oidc-provider.md "Dynamic registration"). */
  registration?: RegistrationOptions
}

/** The resolved options. */
export interface ResolvedOptions {
  store: OidcProviderStore
  issuer: string | undefined
  clients: Map<string, ConfiguredClient>
  scopes: string[]
  resources: string[]
  defaultAudience: string | undefined
  signingAlgs: SigningAlg[]
  keys: Record<string, unknown>[] | undefined
  keyRotation: number
  keyCacheTtl: number
  ttl: { code: number; accessToken: number; idToken: number; refreshToken: number; grant: number; interaction: number }
  refreshTokens: "offline_access" | "always"
  organizations: OrganizationsReader | undefined
  claims: OidcProviderOptions["claims"]
  rateLimit: Required<OidcRateLimits> | false
  clockSkew: number
  development: boolean
  registration: RegistrationPolicy | false
}

const ALGS: readonly SigningAlg[] = ["ES256", "RS256", "PS256", "EdDSA"]
const METHODS: readonly ClientAuthMethod[] = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
const GRANTS: readonly GrantType[] = ["authorization_code", "refresh_token", "client_credentials", "urn:ietf:params:oauth:grant-type:device_code"]
const BASE_SCOPES = ["openid", "profile", "email", "offline_access"]

const DEFAULT_LIMITS: Required<OidcRateLimits> = {
  authorize: { max: 60, window: 60 },
  token: { max: 120, window: 60 },
  userinfo: { max: 600, window: 60 },
  introspect: { max: 600, window: 60 },
  revoke: { max: 120, window: 60 },
  device: { max: 20, window: 600 },
}

const fail = (message: string): never => {
  throw new InvalidConfig(`oidcProvider: ${message}`)
}

const positive = (name: string, value: number | undefined, fallback: number): number => {
  if (value === undefined) return fallback
  if (!Number.isInteger(value) || value < 1) fail(`${name} must be a whole number of seconds above 0`)
  return value
}

/** Whether `uri` is an absolute http(s) URL without a fragment (`https` or loopback `http`). */
export function checkRedirectUri(uri: string, where: string): void {
  let url: URL
  try {
    url = new URL(uri)
  } catch {
    return fail(`${where} ${JSON.stringify(uri)} is not an absolute URL`)
  }
  if (url.hash || uri.includes("#")) fail(`${where} ${JSON.stringify(uri)} must not have a fragment`)
  if (url.username || url.password) fail(`${where} ${JSON.stringify(uri)} must not hold credentials`)
  if (url.protocol === "https:") return
  if (url.protocol === "http:" && isLoopback(url.hostname)) return
  // Private-use schemes of native apps (RFC 8252 §7.1): reverse domain names, with a dot.
  if (/^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol)) return
  fail(`${where} ${JSON.stringify(uri)} must be https (http only for loopback addresses)`)
}

/** Loopback hosts per RFC 8252 §7.3 (IP literals; `localhost` too, for development). */
export function isLoopback(hostname: string): boolean {
  return hostname === "127.0.0.1" || hostname === "[::1]" || hostname === "localhost"
}

async function sha256HexOf(value: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(value)))
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("")
}

/** Checks one static client; the secret is hashed later (`hashSecrets`), asynchronously. */
function staticClient(c: StaticClientOptions, index: number, scopes: string[], resources: string[], algs: SigningAlg[]): ConfiguredClient & { plainSecret?: string } {
  if (!c || typeof c !== "object") return fail(`clients[${index}] must be an object`)
  const name = typeof c.clientId === "string" && c.clientId ? `client "${c.clientId}"` : fail(`clients[${index}].clientId is required`)
  if (!/^[\x20-\x7e]{1,200}$/.test(c.clientId)) fail(`${name}: clientId must be printable ASCII (RFC 6749 VSCHAR), at most 200 characters`)
  if (c.clientSecret !== undefined && (typeof c.clientSecret !== "string" || c.clientSecret.length < 32)) fail(`${name}: clientSecret must be at least 32 characters (a high-entropy random value)`)
  if (c.clientSecretHash !== undefined && !/^[0-9a-f]{64}$/.test(c.clientSecretHash)) fail(`${name}: clientSecretHash must be a SHA-256 hex digest`)
  if (c.clientSecret && c.clientSecretHash) fail(`${name}: give clientSecret or clientSecretHash, not both`)
  const hasSecret = !!(c.clientSecret || c.clientSecretHash)
  const hasKeys = !!(c.jwks || c.jwksUri)
  const method = c.tokenEndpointAuthMethod ?? (hasSecret ? "client_secret_basic" : hasKeys ? "private_key_jwt" : "none")
  if (!METHODS.includes(method)) fail(`${name}: tokenEndpointAuthMethod must be one of ${METHODS.join(", ")}`)
  if ((method === "client_secret_basic" || method === "client_secret_post") && !hasSecret) fail(`${name}: tokenEndpointAuthMethod ${method} needs clientSecret or clientSecretHash`)
  if (method === "private_key_jwt" && !hasKeys) fail(`${name}: tokenEndpointAuthMethod private_key_jwt needs jwks or jwksUri`)
  if ((method === "none" || method === "private_key_jwt") && hasSecret) fail(`${name}: a ${method} client has no secret`)
  if (c.jwks && (!Array.isArray(c.jwks.keys) || c.jwks.keys.some((k) => !k || typeof k !== "object" || "d" in k))) fail(`${name}: jwks must be { keys: [public JWKs] }`)
  if (c.jwksUri !== undefined) {
    try {
      if (new URL(c.jwksUri).protocol !== "https:") fail(`${name}: jwksUri must be https`)
    } catch (e) {
      if (e instanceof InvalidConfig) throw e
      fail(`${name}: jwksUri is not a URL`)
    }
  }
  const grantTypes = c.grantTypes ?? ["authorization_code", "refresh_token"]
  if (!Array.isArray(grantTypes) || grantTypes.some((g) => !GRANTS.includes(g))) fail(`${name}: grantTypes must hold only ${GRANTS.join(", ")}`)
  if (grantTypes.includes("client_credentials") && method === "none") fail(`${name}: client_credentials is for confidential clients only`)
  if (!Array.isArray(c.redirectUris)) fail(`${name}: redirectUris must be an array`)
  if (grantTypes.includes("authorization_code") && !c.redirectUris.length) fail(`${name}: redirectUris needs at least one URI for the authorization_code grant`)
  c.redirectUris.forEach((uri, i) => checkRedirectUri(uri, `${name}: redirectUris[${i}]`))
  const logout = c.postLogoutRedirectUris ?? []
  logout.forEach((uri, i) => checkRedirectUri(uri, `${name}: postLogoutRedirectUris[${i}]`))
  const scope = c.scope ?? scopes.join(" ")
  for (const s of scope.split(" ").filter(Boolean)) if (!scopes.includes(s)) fail(`${name}: scope "${s}" is not a configured scope`)
  if (c.resources) for (const r of c.resources) checkResource(r, `${name}: resources`)
  if (c.serves !== undefined) {
    if (!Array.isArray(c.serves)) fail(`${name}: serves must be an array of resource URIs`)
    for (const r of c.serves) checkResource(r, `${name}: serves`)
    if (method === "none") fail(`${name}: serves is for confidential clients (a resource server authenticates to introspect)`)
  }
  if (c.idTokenSignedResponseAlg !== undefined && !algs.includes(c.idTokenSignedResponseAlg)) fail(`${name}: idTokenSignedResponseAlg must be one of signingAlgs (${algs.join(", ")})`)
  return {
    clientId: c.clientId,
    tokenEndpointAuthMethod: method,
    redirectUris: [...c.redirectUris],
    postLogoutRedirectUris: [...logout],
    grantTypes: [...grantTypes],
    scope,
    ...(c.resources && { resources: [...c.resources] }),
    ...(c.serves && { serves: [...c.serves] }),
    ...(c.clientSecretHash && { secretHash: c.clientSecretHash }),
    ...(c.clientSecret && { plainSecret: c.clientSecret }),
    ...(c.jwks && { jwks: c.jwks }),
    ...(c.jwksUri && { jwksUri: c.jwksUri }),
    ...(c.name && { name: c.name }),
    ...(c.logoUri && { logoUri: c.logoUri }),
    ...(c.clientUri && { clientUri: c.clientUri }),
    ...(c.policyUri && { policyUri: c.policyUri }),
    ...(c.tosUri && { tosUri: c.tosUri }),
    ...(c.firstParty && { firstParty: true }),
    ...(c.idTokenSignedResponseAlg && { idTokenAlg: c.idTokenSignedResponseAlg }),
    dynamic: false,
    createdAt: new Date(0),
  }
}

/** A resource indicator: an absolute URI without a fragment (RFC 8707 §2). */
export function checkResource(value: string, where: string): void {
  try {
    const url = new URL(value)
    if (url.hash) fail(`${where}: ${JSON.stringify(value)} must not have a fragment`)
  } catch (e) {
    if (e instanceof InvalidConfig) throw e
    fail(`${where}: ${JSON.stringify(value)} is not an absolute URI`)
  }
}

/** Checks the options; static clients' secrets are hashed by {@link hashSecrets}. */
export function resolveOptions(options: OidcProviderOptions): ResolvedOptions & { pendingSecrets: Map<string, string> } {
  if (!options || typeof options !== "object") fail("options are required")
  if (!options.store || typeof options.store.takeCode !== "function") fail("options.store is required (memoryOidcProviderStore(), sqlOidcProviderStore(db) or redisOidcProviderStore(redis))")
  if (options.issuer !== undefined) {
    let url: URL | undefined
    try {
      url = new URL(options.issuer)
    } catch {}
    if (!url || url.search || url.hash || options.issuer.endsWith("/")) fail("issuer must be an absolute URL without query, fragment or trailing slash")
    if (url!.protocol !== "https:" && !(url!.protocol === "http:" && isLoopback(url!.hostname))) fail("issuer must be https (http only on a loopback host)")
  }
  const signingAlgs = options.signingAlgs ?? ["ES256", "RS256"]
  if (!Array.isArray(signingAlgs) || !signingAlgs.length || signingAlgs.some((a) => !ALGS.includes(a))) fail(`signingAlgs must be a non-empty list of ${ALGS.join(", ")}`)
  if (!signingAlgs.includes("RS256")) fail("signingAlgs must include RS256 (OpenID Connect Core §15.1)")
  if (options.keys !== undefined) {
    if (!Array.isArray(options.keys) || !options.keys.length) fail("keys must be a non-empty array of private JWKs")
    for (const [i, k] of options.keys.entries()) {
      if (typeof k.kid !== "string" || !k.kid) fail(`keys[${i}] needs a kid`)
      if (!signingAlgs.includes(k.alg as SigningAlg)) fail(`keys[${i}].alg must be one of signingAlgs`)
      if (typeof k.d !== "string") fail(`keys[${i}] must be a private JWK (with d)`)
    }
    for (const alg of signingAlgs) if (!options.keys.some((k) => k.alg === alg)) fail(`keys has no key for ${alg}`)
  }
  const scopes = [...new Set([...BASE_SCOPES, ...(options.organizations ? ["organization"] : []), ...(options.scopes ?? [])])]
  for (const s of scopes) if (!/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)) fail(`scope ${JSON.stringify(s)} has characters RFC 6749 §3.3 does not allow`)
  const resources = options.resources ?? []
  resources.forEach((r) => checkResource(r, "resources"))
  if (options.defaultAudience !== undefined) checkResource(options.defaultAudience, "defaultAudience")
  const clients = new Map<string, ConfiguredClient>()
  const pendingSecrets = new Map<string, string>()
  for (const [i, c] of (options.clients ?? []).entries()) {
    const client = staticClient(c, i, scopes, resources, signingAlgs)
    if (clients.has(client.clientId)) fail(`client "${client.clientId}" is configured twice`)
    const { plainSecret, ...kept } = client
    if (plainSecret) pendingSecrets.set(client.clientId, plainSecret)
    clients.set(client.clientId, kept)
  }
  const ttl = options.ttl ?? {}
  if (options.refreshTokens !== undefined && options.refreshTokens !== "offline_access" && options.refreshTokens !== "always") fail('refreshTokens must be "offline_access" or "always"')
  if (options.organizations && typeof options.organizations.listOrganizations !== "function") fail("organizations must be the organizations extension's store (with listOrganizations)")
  if (options.claims !== undefined && typeof options.claims !== "function") fail("claims must be a function (user, scopes) => claims")
  const clockSkew = options.clockSkew ?? 30
  if (!Number.isInteger(clockSkew) || clockSkew < 0 || clockSkew > 300) fail("clockSkew must be a whole number of seconds from 0 to 300")
  return {
    store: options.store,
    issuer: options.issuer,
    clients,
    pendingSecrets,
    scopes,
    resources,
    defaultAudience: options.defaultAudience,
    signingAlgs,
    keys: options.keys,
    keyRotation: positive("keyRotation", options.keyRotation, 30 * 24 * 3600),
    keyCacheTtl: positive("keyCacheTtl", options.keyCacheTtl, 60),
    ttl: {
      code: positive("ttl.code", ttl.code, 60),
      accessToken: positive("ttl.accessToken", ttl.accessToken, 3600),
      idToken: positive("ttl.idToken", ttl.idToken, 3600),
      refreshToken: positive("ttl.refreshToken", ttl.refreshToken, 30 * 24 * 3600),
      grant: positive("ttl.grant", ttl.grant, 90 * 24 * 3600),
      interaction: positive("ttl.interaction", ttl.interaction, 30 * 60),
    },
    refreshTokens: options.refreshTokens ?? "offline_access",
    organizations: options.organizations,
    claims: options.claims,
    rateLimit: options.rateLimit === false ? false : { ...DEFAULT_LIMITS, ...options.rateLimit },
    clockSkew,
    development: options.development ?? process.env.NODE_ENV !== "production",
    registration: resolveRegistration(options.registration, scopes),
  }
}

/** Hashes the static clients' plain secrets (SHA-256): only the hash is kept. */
export async function hashSecrets(clients: ResolvedOptions["clients"], pending: Map<string, string>): Promise<void> {
  for (const [clientId, secret] of pending) clients.get(clientId)!.secretHash = await sha256HexOf(secret)
  pending.clear()
}

/**
 * The leaf types of `@portcullis/core`: the shapes every other module (providers, adapters,
 * the engine) speaks in, with no imports of their own, so importing them never pulls in a
 * cycle. `types.ts` re-exports all of them next to the configuration types built on them.
 * @module
 */

/** The kinds of provider. */
export type ProviderType = "oauth" | "oidc" | "email" | "credentials" | "webauthn" | "password"

/** A value or a promise of it. */
export type Awaitable<T> = T | PromiseLike<T>

/** A semantic-version string (`v1`, `v1.2`, `v1.2.3`). */
export type SemverString = `v${number}` | `v${number}.${number}` | `v${number}.${number}.${number}`

/** The actions served under `basePath`. */
export type AuthAction =
  | "callback"
  | "csrf"
  | "error"
  | "providers"
  | "session"
  | "signin"
  | "signout"
  | "verify-request"
  | "webauthn-options"
  | "two-factor"
  | "reauthenticate"
  | "password"
  | "health"

/** The user part of a session, as the client sees it. */
export interface User {
  id?: string
  name?: string | null
  email?: string | null
  image?: string | null
}

/** The session returned by `GET /auth/session`. */
export interface Session {
  /** ISO date at which the session expires. */
  expires: string
  user?: User
}

/** The default session shape. */
export type DefaultSession = Session

/** Profile returned by an OAuth or OIDC provider (standard OIDC claims, plus anything else). */
export interface Profile {
  [claim: string]: unknown
  sub?: string | null
  name?: string | null
  given_name?: string | null
  family_name?: string | null
  middle_name?: string | null
  nickname?: string | null
  preferred_username?: string | null
  profile?: string | null
  picture?: unknown
  website?: string | null
  email?: string | null
  email_verified?: boolean | null
  gender?: string | null
  birthdate?: string | null
  zoneinfo?: string | null
  locale?: string | null
  phone_number?: string | null
  updated_at?: Date | string | number | null
  address?: {
    formatted?: string | null
    street_address?: string | null
    locality?: string | null
    region?: string | null
    postal_code?: string | null
    country?: string | null
  } | null
  id?: string | null
}

/** An OAuth token endpoint response, with `expires_at` computed from `expires_in`. */
export interface TokenSet {
  access_token?: string
  token_type?: Lowercase<string>
  id_token?: string
  refresh_token?: string
  scope?: string
  expires_in?: number
  /** Absolute expiry of the access token, in seconds since the epoch. */
  expires_at?: number
  authorization_details?: Array<Record<string, unknown> & { type: string }>
  [key: string]: unknown
}

/** A link between a user and a provider. */
export interface Account extends TokenSet {
  /** Id of the provider. */
  provider: string
  /**
   * The user's id at the provider: the profile id for OAuth/OIDC, the address for email,
   * the `id` returned by `authorize()` for credentials, the credential id for WebAuthn.
   */
  providerAccountId: string
  type: ProviderType
  userId?: string
}

/** A cookie's serialisation options. */
export interface CookieSerializeOptions {
  domain?: string
  expires?: Date
  httpOnly?: boolean
  maxAge?: number
  partitioned?: boolean
  path?: string
  priority?: "low" | "medium" | "high"
  sameSite?: "lax" | "strict" | "none" | boolean
  secure?: boolean
}

/** A cookie's name and options. */
export interface CookieOption {
  name: string
  options: CookieSerializeOptions
}

/** The cookies Portcullis sets, by purpose. */
export interface CookiesOptions {
  sessionToken: CookieOption
  callbackUrl: CookieOption
  csrfToken: CookieOption
  pkceCodeVerifier: CookieOption
  state: CookieOption
  nonce: CookieOption
  webauthnChallenge: CookieOption
  /** Portcullis: the sealed challenge between a first factor and the two-factor step (5 minutes). */
  twoFactorChallenge: CookieOption
  /** Portcullis: the signed "remember this device" mark that skips the two-factor step (`twoFactor.rememberDevice`). */
  twoFactorDevice: CookieOption
  /** Portcullis: the sealed list of accounts that signed in on this browser, for new-device notices (`notifications.newDevice`; 400 days). */
  knownDevice: CookieOption
}

/** Overrides for the cookies: each name and option is optional. */
export type PartialCookiesOptions = {
  [K in keyof CookiesOptions]?: { name?: string; options?: CookieSerializeOptions }
}

/** A cookie to set in the response. */
export interface Cookie extends CookieOption {
  value: string
}

/** Paths of custom pages. */
export interface PagesOptions {
  /** Sign-in page; receives `?error=` and `?callbackUrl=`. */
  signIn: string
  signOut: string
  /** Error page; receives `?error=`. */
  error: string
  verifyRequest: string
  /** Where new users are sent after their first sign-in. */
  newUser: string
}

/** Look of the built-in pages. */
export interface Theme {
  colorScheme?: "auto" | "dark" | "light"
  logo?: string
  brandColor?: string
  buttonText?: string
  /**
   * The sign-in page's layout: `"identifier"` (default) asks for the email address once and
   * then shows the methods for it; `"authjs"` is Auth.js's page, one form per provider, as
   * it always was (for apps that screenshot-test it). See docs/pages.md.
   * @example { theme: { layout: "authjs" } }
   */
  layout?: "identifier" | "authjs"
}

/** Codes passed to `logger.warn`. */
export type WarningCode =
  | "debug-enabled"
  | "csrf-disabled"
  | "env-url-basepath-redundant"
  | "env-url-basepath-mismatch"
  | "experimental-webauthn"
  | "short-secret"
  | "host-derived-redirect-uri"
  | "session-cookie-unreadable"
  | "insecure-provider-endpoint"
  | "rate-limited"
  | "rate-limit-store-failed"
  | "rate-limit-no-address"
  | "password-breach-check-failed"
  | "token-refresh-conflict"
  | "token-refresh-local-lock"
  | "two-factor-code-refused"
  | "express-trust-proxy-all"
  | "security-notice-unsent"
  | "csrf-refused"
  | "verification-refused"
  | "oauth-check-refused"
  | "challenge-refused"
  | "request-malformed"
  | "credentials-refused"
  | "sign-in-refused"
  | "extension-refused"
  | "store-failing"
  | "store-recovered"

/** Where Portcullis writes its logs. Any method left out uses the default. */
export interface LoggerInstance {
  /**
   * `details` comes with warnings about bad input (`session-cookie-unreadable`, and every
   * client-caused refusal such as `csrf-refused` or `credentials-refused`): the `kind` (the
   * error's `type`), and `suppressed` — how many more of that kind the last minute held.
   * Store outages come here too after their first failure (`store-failing`,
   * `store-recovered`); see docs/observability.md.
   */
  warn(code: WarningCode, details?: Record<string, unknown>): void
  error(error: Error): void
  debug(message: string, metadata?: unknown): void
}

/** Options for `session`. */
export interface SessionOptions {
  /** `"jwt"` (encrypted cookie) or `"database"` (row via the adapter). Default: `"database"` with an adapter, else `"jwt"`. */
  strategy: "jwt" | "database"
  /** Seconds until an idle session expires. Default 30 days. */
  maxAge: number
  /** Seconds between session extensions; 0 extends on every check. Default 1 day. */
  updateAge: number
  /** Token of database sessions. Default: 32 random bytes as hex (256 bits). */
  generateSessionToken: () => string
  /**
   * Database sessions: store only a SHA-256 hash of each token, so whoever reads the
   * sessions table cannot sign in as anyone. Default `false`, because Auth.js stores tokens
   * as issued: turning it on signs out sessions created before.
   */
  hashTokens: boolean
  /**
   * JWT sessions: where sessions are registered so they can be listed and revoked
   * (`docs/sessions.md`). With a registry, each token carries a session id, recorded at
   * sign-in; a check asks the registry at most once per {@link revocationCheckInterval}
   * whether that id is still there. Default: none (Auth.js behaviour, nothing extra on the
   * hot path). Turning it on signs out JWT sessions issued without it.
   */
  registry?: SessionRegistry
  /**
   * Seconds a check trusts the registry's last answer for one session: the longest a
   * revoked JWT session is still accepted on another instance. Default 60.
   */
  revocationCheckInterval: number
  /**
   * Database sessions: write `createdAt`, `lastSeenAt`, `userAgent` and `ipAddress` to each
   * session row (the columns `portcullis migrate` adds). Default `false`, so an Auth.js
   * database without those columns keeps working.
   */
  metadata: boolean
  /**
   * Seconds after sign-in at which a session ends however often it was extended (T42);
   * `undefined` for no absolute limit (the default, as Auth.js). Database sessions need
   * {@link metadata} (the row's `createdAt`).
   */
  absoluteMaxAge?: number
  /**
   * JWT sessions of unverified users (a passkey sign-up, an OAuth profile that does not vouch
   * for its email) are confirmed with `adapter.getUser` on each check (T67). A configuration
   * without an adapter — the edge middleware of Auth.js's split setup — cannot ask: it
   * accepts such a session for this many seconds after a configuration with the adapter last
   * confirmed it, then answers no session (keeping the cookie) until one confirms it again.
   * Configurations with the adapter refresh the confirmation at least every half of this.
   * Default: `maxAge`.
   */
  unverifiedMaxAge: number
}

/**
 * One registered JWT session, as a {@link SessionRegistry} stores it. `id` is random (128
 * bits) and is the token's `pcl_sid` claim; `userId` is the token's `sub`.
 */
export interface SessionRecord {
  id: string
  userId: string
  createdAt: Date
  lastSeenAt: Date
  /** When the record may be forgotten: the token cannot outlive it. */
  expires: Date
  userAgent?: string | null
  ipAddress?: string | null
}

/**
 * Where JWT sessions are registered (the `session.registry` option): small enough for an
 * edge runtime to implement over its own key-value store. Every method is per user, so
 * nothing can reach another user's sessions. Implementations: `MemorySessionRegistry`
 * (`@portcullis/memory-adapter`, one process), `RedisSessionRegistry`
 * (`@portcullis/redis-adapter`), `SqlSessionRegistry` (`@portcullis/sql-adapter`).
 *
 * @example
 * ```ts
 * const registry: SessionRegistry = {
 *   add: (record) => kv.put(`${record.userId}:${record.id}`, JSON.stringify(record)),
 *   touch: async (userId, id, lastSeenAt, expires) => { … return existed },
 *   list: async (userId) => …,
 *   remove: async (userId, ids) => …,
 *   removeAll: async (userId) => …,
 * }
 * ```
 */
export interface SessionRegistry {
  /** Records a new session (at sign-in). */
  add(record: SessionRecord): Awaitable<void>
  /**
   * Marks the session seen and pushes its `expires` out, only if it is still registered
   * (never recreating a removed one); returns whether it was. One round trip.
   */
  touch(userId: string, id: string, lastSeenAt: Date, expires: Date): Awaitable<boolean>
  /** The user's sessions that have not expired. */
  list(userId: string): Awaitable<SessionRecord[]>
  /** Removes those of `ids` that belong to `userId`; returns how many it removed. */
  remove(userId: string, ids: string[]): Awaitable<number>
  /** Removes every session of `userId`; returns how many it removed. */
  removeAll(userId: string): Awaitable<number>
  /**
   * Optional: how many sessions of every user have not expired (an admin console's "active
   * sessions"). A registry that cannot count without scanning every key may leave it out.
   */
  count?(): Awaitable<number>
}

/**
 * One of the signed-in user's sessions, as the session-management API lists it
 * (`listSessions`). `id` is opaque and unguessable: the registry id of a JWT session, a
 * hash of the stored token of a database session (never the token itself).
 */
export interface SessionInfo {
  id: string
  /** Whether this is the session of the request that asked. */
  current: boolean
  /** `null` for a database row written without `session.metadata`. */
  createdAt: Date | null
  lastSeenAt: Date | null
  expires: Date
  userAgent: string | null
  ipAddress: string | null
}

/** The internal response an action produces, before it becomes a `Response`. */
export interface ResponseInternal<Body extends string | Record<string, any> | any[] | null = any> {
  status?: number
  headers?: Headers | HeadersInit
  body?: Body
  redirect?: string
  cookies?: Cookie[]
}

/** The spec's name for {@link ResponseInternal}. */
export type InternalResponse = ResponseInternal

/** A provider as listed by `GET /auth/providers`. */
export interface PublicProvider {
  id: string
  name: string
  type: string
  signinUrl: string
  callbackUrl: string
}

/** Fields every provider has. */
export interface CommonProviderOptions {
  /** Unique id, used in URLs: `/auth/signin/<id>`, `/auth/callback/<id>`. */
  id: string
  /** Name on the sign-in page. */
  name: string
  type: ProviderType
  /** The options the user passed to the provider factory; merged over the defaults. */
  options?: Record<string, unknown>
}

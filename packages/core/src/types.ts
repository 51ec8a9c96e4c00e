/**
 * Public types of `@portcullis/core`. Names and shapes follow Auth.js v5 so a migrated app
 * keeps its type imports by changing the import specifier.
 * @module
 */
import type { Adapter, AdapterSession, AdapterUser } from "./adapters.js"
import type { AuthError } from "./errors.js"
import type { JWT, JWTOptions } from "./jwt.js"
import type { Provider, ProviderType } from "./providers/index.js"
import type { customFetch, raw, skipCSRFCheck } from "./symbols.js"

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

/** Where Portcullis writes its logs. Any method left out uses the default. */
export interface LoggerInstance {
  /**
   * `details` comes with warnings about bad input (`session-cookie-unreadable`): the
   * `kind`, and `suppressed` — how many more of that kind the last minute held.
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
}

/** Parameters of the `signIn` callback. */
export interface SignInCallbackParams {
  user: User | AdapterUser
  account?: Account | null
  profile?: Profile
  email?: { verificationRequest?: boolean }
  credentials?: Record<string, unknown>
}

/** Parameters of the `jwt` callback. */
export interface JWTCallbackParams {
  token: JWT
  user: User | AdapterUser
  account?: Account | null
  profile?: Profile
  trigger?: "signIn" | "signUp" | "update"
  /** @deprecated use `trigger === "signUp"` */
  isNewUser?: boolean
  /** Data sent by the client with `update()`. Validate it before use. */
  session?: any
}

/** Parameters of the `session` callback. */
export type SessionCallbackParams = ({
  session: Session
  token: JWT
  user?: undefined
} | {
  session: Session & AdapterSession
  user: AdapterUser
  token?: undefined
}) & {
  newSession?: any
  trigger?: "update"
}

/** Callbacks that let the app steer sign-in, redirects, token and session content. */
export interface CallbacksOptions {
  /** `true` continues, `false` denies (`AccessDenied`), a string redirects there. */
  signIn(params: SignInCallbackParams): Awaitable<boolean | string>
  /** Decides where a redirect may go. Default: same-origin URLs and paths only. */
  redirect(params: { url: string; baseUrl: string }): Awaitable<string>
  /** Shapes what the client sees of the session. */
  session(params: SessionCallbackParams): Awaitable<Session | DefaultSession>
  /** Shapes the JWT; return `null` to end the session. */
  jwt(params: JWTCallbackParams): Awaitable<JWT | null>
  /** Used by framework middleware to decide if a request may proceed. */
  authorized?(params: { request: Request; auth: Session | null }): Awaitable<unknown>
}

/** Audit hooks. They never change the flow; a throwing handler is logged. */
export interface EventCallbacks {
  signIn(message: { user: User; account?: Account | null; profile?: Profile; isNewUser?: boolean }): Awaitable<void>
  signOut(message: { session: AdapterSession | null | undefined | void } | { token: JWT | null }): Awaitable<void>
  createUser(message: { user: User }): Awaitable<void>
  updateUser(message: { user: User }): Awaitable<void>
  linkAccount(message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }): Awaitable<void>
  session(message: { session: Session; token: JWT }): Awaitable<void>
}

/** The configuration of Portcullis: the same options as Auth.js v5. */
export interface AuthConfig {
  /** Sign-in methods, in the order they appear on the sign-in page. */
  providers: Provider[]
  /** Persistence. With an adapter, sessions default to the `database` strategy. */
  adapter?: Adapter
  /**
   * Milliseconds each adapter call may take before it fails with an `AdapterError` (whose
   * cause is a `TimeoutError`), so a paused or unreachable store cannot hold requests
   * without bound; the request then answers `ServiceUnavailable`. `false` or `0` disables
   * the limit. Default `5000`.
   *
   * @example
   * ```ts
   * const config = { adapter, adapterTimeout: 2000, providers }
   * ```
   */
  adapterTimeout?: number | false
  /** Path the actions are served under. Default `/auth`. */
  basePath?: string
  /** Secret(s) for encryption and hashing. Newest first; every one decrypts. Default `AUTH_SECRET`. */
  secret?: string | string[]
  session?: Partial<SessionOptions>
  jwt?: Partial<JWTOptions>
  callbacks?: Partial<CallbacksOptions>
  events?: Partial<EventCallbacks>
  /** Cookie name and option overrides. Overriding opts out of the dev/prod defaults for that cookie. */
  cookies?: PartialCookiesOptions
  pages?: Partial<PagesOptions>
  theme?: Theme
  logger?: Partial<LoggerInstance>
  debug?: boolean
  /**
   * Trust the `Host` and `X-Forwarded-*` headers, for apps behind a proxy that sets them.
   * A host-derived origin shapes only answers to the requester itself (redirects, pages,
   * the OAuth `redirect_uri`); mailed sign-in links and the redirect proxy need an origin
   * from `AUTH_URL` or {@link AuthConfig.trustedOrigins}. Default `AUTH_TRUST_HOST`, on
   * when `AUTH_URL`, `VERCEL` or `CF_PAGES` is set or outside production.
   */
  trustHost?: boolean
  /**
   * Origins this deployment may answer on, for apps without one fixed `AUTH_URL` (preview
   * deployments, several domains). A request whose origin matches is trusted as if it were
   * `AUTH_URL`; with neither `AUTH_URL` nor `trustHost`, other origins are refused (400).
   * On the redirect proxy, the origins it may bounce an authorization code to.
   * Exact origins or one-label wildcards: `*` matches letters, digits and `-` within one
   * DNS label. Default: `AUTH_TRUSTED_ORIGINS` (comma-separated), plus Vercel's and
   * Cloudflare Pages' deployment URLs from the environment.
   *
   * @example
   * ```ts
   * trustedOrigins: ["https://app.example.com", "https://myapp-*-myteam.vercel.app"]
   * ```
   */
  trustedOrigins?: string[]
  /** Force `Secure` cookies and their prefixes. Default: on for https origins. */
  useSecureCookies?: boolean
  /** Proxy origin that receives OAuth redirects for preview deployments. Default `AUTH_REDIRECT_PROXY_URL`. */
  redirectProxyUrl?: string
  experimental?: { enableWebAuthn?: boolean }
  /** Pass the exported `skipCSRFCheck` symbol to turn CSRF protection off (framework integrations only). */
  skipCSRFCheck?: typeof skipCSRFCheck
  /** Pass the exported `raw` symbol to get the internal response object instead of a `Response`. */
  raw?: typeof raw
  /** Fetch used for every request Portcullis makes unless a provider sets its own. */
  [customFetch]?: typeof fetch
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

export type { AuthError, JWT, Provider, ProviderType }

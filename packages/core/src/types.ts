/**
 * Public types of `@portcullis/core`. Names and shapes follow Auth.js v5 so a migrated app
 * keeps its type imports by changing the import specifier.
 * @module
 */
import type { I18nOptions } from "./lib/i18n/index.js"
export type { I18nOptions, Messages, MessageOverrides } from "./lib/i18n/index.js"
import type { PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON } from "@simplewebauthn/server"
import type { Adapter, AdapterAuthenticator, AdapterSession, AdapterUser } from "./adapters.js"
import type { AuthError } from "./errors.js"
import type { JWT, JWTOptions } from "./lib/jwt/types.js"
import type { Provider } from "./providers/index.js"
import type { TokenRefreshOptions } from "./lib/tokens/options.js"
import type { customFetch, raw, skipCSRFCheck } from "./symbols.js"
import type { RateLimitedEvent } from "./lib/rate-limit/limiter.js"
import type { RateLimitOptions } from "./lib/rate-limit/options.js"
import type { TwoFactorOptions } from "./lib/two-factor/options.js"
import type { NotificationOptions, SecurityNotice } from "./lib/notify/options.js"
import type { TwoFactorResetEvent } from "./lib/two-factor/reset-event.js"
import type { StepUpOptions } from "./lib/step-up/options.js"
import type { AuditEvent } from "./lib/audit/events.js"
import type { AuditOptions } from "./lib/audit/options.js"
import type { HealthOptions } from "./lib/health/options.js"
import type { Extension } from "./lib/extensions/api.js"
import type {
  Account,
  Awaitable,
  CookiesOptions,
  DefaultSession,
  LoggerInstance,
  PagesOptions,
  PartialCookiesOptions,
  Profile,
  ProviderType,
  Session,
  SessionOptions,
  Theme,
  User,
} from "./base-types.js"

export type * from "./base-types.js"

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

/**
 * Parameters of the `session` callback. Typed as Auth.js types them, with every field
 * present, because migrated apps destructure `{ session, token }` or `{ session, user }`
 * without narrowing; a union would fail their type check. At run time only the fields of
 * the configured strategy are set.
 */
export type SessionCallbackParams = {
  /** With database sessions the stored row and its user; with JWT sessions the default session. */
  session: Session & AdapterSession & { user: AdapterUser }
  /** Database sessions only (at run time `undefined` with JWT sessions). */
  user: AdapterUser
  /** JWT sessions only (at run time `undefined` with database sessions). */
  token: JWT
  /** The data the client sent with `update()` (JWT sessions). */
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
  /**
   * A session cookie was signed out: with database sessions `{ session }`, the row
   * `deleteSession` removed; with JWT sessions `{ token }`, what `jwt.decode` returned (not
   * fired for a cookie that does not open). No session cookie, no event.
   */
  signOut(message: { session: AdapterSession | null | undefined | void } | { token: JWT | null }): Awaitable<void>
  createUser(message: { user: User }): Awaitable<void>
  updateUser(message: { user: User }): Awaitable<void>
  linkAccount(message: { user: User | AdapterUser; account: Account; profile: User | AdapterUser }): Awaitable<void>
  session(message: { session: Session; token: JWT }): Awaitable<void>
  /** A request was refused by a rate limit or a sign-in lockout (`rateLimit`), for monitoring. */
  rateLimited(message: RateLimitedEvent): Awaitable<void>
  /**
   * Sessions were revoked through session management (`docs/sessions.md`): once per call,
   * with the ids it removed. `scope` says which call: `"one"` (`revokeSession`), `"others"`
   * (`revokeOtherSessions`), `"everywhere"` (`signOutEverywhere`).
   */
  sessionRevoked(message: { userId: string; sessionIds: string[]; scope: "one" | "others" | "everywhere"; strategy: "jwt" | "database" }): Awaitable<void>
  /**
   * Portcullis: something that guards an account changed — password changed or reset, 2FA on
   * or off or reset, backup codes regenerated, a passkey added, the address changed — or it
   * signed in from a new device (`notifications.newDevice`). Fired for each, whether or not
   * the notice was mailed (`emailed`), so apps can route notices elsewhere. See
   * docs/notifications.md.
   */
  securityNotice(message: SecurityNotice): Awaitable<void>
  /**
   * Portcullis: `resetTwoFactor` removed a user's second factor (account recovery, docs/two-factor.md),
   * with the reason and actor the app gave: the audit record of that support action.
   */
  twoFactorReset(message: TwoFactorResetEvent): Awaitable<void>
  /**
   * Portcullis: a security event for an audit trail — sign-in success or failure, lockout and
   * rate-limit trips, sign-out, sessions revoked, password, second-factor, passkey, linking
   * and verification changes, step-up (docs/observability.md, "Audit events"). One flat,
   * JSON-serialisable record per event, narrowed by `type`; it never holds a token, password,
   * code or secret. A handler that throws or rejects is logged and never fails the flow.
   *
   * @example
   * ```ts
   * const config = {
   *   providers,
   *   events: {
   *     audit(event) {
   *       if (event.type === "signInFailed") console.warn(event.reason, event.method, event.ip)
   *       auditLog.insert(event)
   *     },
   *   },
   * }
   * ```
   */
  audit(message: AuditEvent): Awaitable<void>
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
   * without bound; the request then answers `ServiceUnavailable`. A late call fails between
   * the limit and 1.25 × the limit (one timer serves all calls). `false` or `0` disables
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
  /**
   * The language of the built-in pages and emails: by default the browser's
   * `Accept-Language`, among English, German, French, Spanish, Portuguese, Japanese,
   * Chinese (Simplified) and Arabic, falling back to English. Force one, add a language or
   * replace sentences here. See docs/i18n.md.
   *
   * @example
   * ```ts
   * i18n: { defaultLocale: "fr", messages: { fr: { signin: { heading: "Bienvenue" } } } }
   * ```
   */
  i18n?: I18nOptions
  logger?: Partial<LoggerInstance>
  /** Console debug lines (`[auth][debug]:`). Ignored when `logger.debug` is set: the app's logger gets every debug message. */
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
  /**
   * Portcullis: how `getAccessToken` refreshes provider access tokens — the expiry skew,
   * the lock shared by the app's instances, and whether JWT sessions carry the tokens
   * (docs/tokens.md).
   */
  tokenRefresh?: TokenRefreshOptions
  /** Pass the exported `skipCSRFCheck` symbol to turn CSRF protection off (framework integrations only). */
  skipCSRFCheck?: typeof skipCSRFCheck
  /** Pass the exported `raw` symbol to get the internal response object instead of a `Response`. */
  raw?: typeof raw
  /** Fetch used for every request Portcullis makes unless a provider sets its own. */
  [customFetch]?: typeof fetch
  /**
   * Rate limits and sign-in lockout for every way in (credentials, email, passkeys, OAuth
   * start, session update), per client address and per identifier; `false` turns them off.
   * Default: on with the documented limits and an in-memory store, except under
   * `NODE_ENV=test`, where it is off unless set. See `docs/rate-limiting.md`.
   *
   * @example
   * ```ts
   * const config = { providers, rateLimit: { perIdentifier: { credentials: { max: 5, window: 900 } } } }
   * ```
   */
  rateLimit?: false | RateLimitOptions
  /**
   * Portcullis: two-factor authentication (`docs/two-factor.md`). A user who turned it on
   * enters a TOTP or backup code at `<basePath>/two-factor` after any first factor, before a
   * session is issued. Needs an adapter with the two-factor capability.
   *
   * @example
   * ```ts
   * const config = { adapter: SqlAdapter(db), providers, twoFactor: { issuer: "Example", rememberDevice: 30 * 86400 } }
   * ```
   */
  twoFactor?: TwoFactorOptions
  /**
   * Portcullis: security notifications (`docs/notifications.md`). The account's address gets
   * an email when its password, second factor, backup codes, passkeys or address change, and
   * — opted in with `newDevice` — when it signs in from a new device; the `securityNotice`
   * event fires for each. Default: mailed when the configuration has a sender, no new-device
   * notices.
   *
   * @example
   * ```ts
   * const config = { providers, notifications: { newDevice: true, email: { backupCodesRegenerated: false } } }
   * ```
   */
  notifications?: NotificationOptions
  /**
   * Portcullis: step-up re-authentication ("sudo mode", `docs/step-up.md`). Sensitive actions
   * (2FA enrollment, revoking every session, adding a passkey, an app's own actions gated with
   * `requireStepUp`) need a first factor proven in the same session within `maxAge` seconds:
   * a sign-in, or the password at `<basePath>/reauthenticate`. On by default (10 minutes).
   *
   * @example
   * ```ts
   * const config = { providers, stepUp: { maxAge: 5 * 60, store: redisRateLimitStore(redis) } }
   * ```
   */
  stepUp?: StepUpOptions
  /**
   * Portcullis: health checks for load balancers and Kubernetes probes
   * (`docs/observability.md`, "Health checks"). `health()` from `@portcullis/core/integration`
   * always works; `endpoint: true` also serves `GET <basePath>/health`.
   *
   * @example
   * ```ts
   * const config = { adapter, providers, health: { endpoint: true } }
   * ```
   */
  health?: HealthOptions
  /**
   * Portcullis: extensions (docs/extensions.md) — capabilities built on the public extension
   * API (`@portcullis/core/extension`): their routes are served under the base path, their
   * session fields added to the session, their server functions exposed by every integration.
   *
   * @example
   * ```ts
   * import { organizations } from "@portcullis/organizations"
   * const config = { adapter, providers, extensions: [organizations({ store })] }
   * ```
   */
  extensions?: readonly Extension<string, any, any>[]
  /**
   * Portcullis: storing the audit trail (`docs/observability.md`, "Storing the audit trail").
   * With an adapter that has the audit capability, every audit event is stored (beside the
   * `events.audit` stream) and kept `retention` seconds (default 90 days); read it with
   * `auditTrail()` from `@portcullis/core/integration`. `store: false` keeps the stream only.
   *
   * @example
   * ```ts
   * const config = { adapter, providers, audit: { retention: 30 * 24 * 60 * 60 } }
   * ```
   */
  audit?: AuditOptions
  /**
   * Portcullis: OpenTelemetry traces and metrics (`docs/observability.md`, "Traces and
   * metrics"). On by default, and free until an app registers an OpenTelemetry SDK (before
   * the configuration is first used): Portcullis then reports through the SDK's global
   * tracer and meter providers. `false` keeps this configuration out of them.
   *
   * @example
   * ```ts
   * const config = { adapter, providers, telemetry: false }
   * ```
   */
  telemetry?: boolean
}

export type { AuthError, JWT, Provider, StepUpOptions, HealthOptions, AuditOptions, TwoFactorOptions, NotificationOptions, SecurityNotice, TwoFactorResetEvent }
export type { NoticeDevice, SecurityNoticeKind } from "./lib/notify/options.js"
export type { AuditEvent, AuditEventType, AuditOutcome, AuditDetails, AuditRecord } from "./lib/audit/events.js"

/** Auth.js's name for the fields every user has (`id`, `name`, `email`, `image`): {@link User}. */
export type DefaultUser = User

/** The value a promise resolves to (Auth.js's own `Awaited`, kept for its importers). */
export type Awaited<T> = T extends Promise<infer U> ? U : T

/** The `?error=` codes of the error page. */
export type ErrorPageParam = "Configuration" | "AccessDenied" | "Verification"

/** The `?error=` codes the sign-in page shows a message for. */
export type SignInPageErrorParam =
  | "Signin"
  | "OAuthSignin"
  | "OAuthCallbackError"
  | "OAuthCreateAccount"
  | "EmailCreateAccount"
  | "Callback"
  | "OAuthAccountNotLinked"
  | "EmailSignin"
  | "CredentialsSignin"
  | "SessionRequired"

/** A passkey as the app sees it: an {@link AdapterAuthenticator} whose `userId` may not be known yet. */
export type Authenticator = Omit<AdapterAuthenticator, "userId"> & { userId?: string }

/**
 * What `GET <basePath>/webauthn-options/<provider>` answers: the ceremony to run and its
 * options, for `startAuthentication` / `startRegistration` of `@simplewebauthn/browser`.
 *
 * @example
 * ```ts
 * const body: WebAuthnOptionsResponseBody = await (await fetch("/auth/webauthn-options/passkey")).json()
 * if (body.action === "register") await startRegistration({ optionsJSON: body.options })
 * ```
 */
export type WebAuthnOptionsResponseBody =
  | { action: "authenticate"; options: PublicKeyCredentialRequestOptionsJSON }
  | { action: "register"; options: PublicKeyCredentialCreationOptionsJSON }

import type { Adapter } from "../../adapters.js"
import type { AuthError } from "../../errors.js"
import type { CookiesOptions, LoggerInstance, PagesOptions, SessionOptions, Theme } from "../../base-types.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { CallbacksOptions, EventCallbacks } from "../../types.js"
import type { PasswordStrength } from "../password-flows/strength.js"
import type { ResolvedI18n } from "../i18n/index.js"
import type { JWTOptions } from "../jwt/types.js"
import type { KeyRing } from "../jwt/keys.js"
import type { SessionMemory } from "../session/memory.js"
import type { RegistryState } from "../session/registry.js"
import type { DiscoveryCache } from "../oauth/discovery-cache.js"
import type { ConfiguredKinds } from "../kinds/shapes.js"
import type { TokenRefreshState } from "../tokens/state.js"
import type { LogLimiter } from "../log-limiter.js"
import type { ResolvedAuditOptions } from "../audit/options.js"
import type { AuditStore } from "../audit/store.js"
import type { StoreHealth } from "../store-health.js"
import type { Telemetry } from "../telemetry/index.js"
import type { OriginMemo } from "../http/origin-memo.js"
import type { RateLimiter } from "../rate-limit/limiter.js"
import type { ResolvedTwoFactor } from "../two-factor/options.js"
import type { ResolvedNotifications } from "../notify/options.js"
import type { ResolvedStepUp } from "../step-up/options.js"
import type { ResolvedHealth } from "../health/options.js"
import type { ResolvedExtensions } from "../extensions/shapes.js"
import type { Env } from "./env.js"
import type { AuditStoreMethods, Stores } from "./stores.js"
import type { TrustedOrigins } from "./trusted-origins.js"

/**
 * The shape of a resolved configuration, apart from the resolver (`resolve.ts`) that builds
 * it: nearly every module reads it, and importing it from here ties none of them to what
 * resolution imports (the provider kinds, adapters wrapping, env parsing).
 * @module
 */

/** The configuration with every default applied and every check done; computed once per config object. */
export interface ResolvedConfig {
  basePath: string
  providers: ProviderConfig[]
  providerById: Map<string, ProviderConfig>
  /** The wrapped adapter (errors become `AdapterError`, calls are bounded by `adapterTimeout`), for optional methods. */
  adapter: Adapter | undefined
  /** The same adapter narrowed per feature (`store(config.stores, "email")`): what each feature may call. */
  stores: Stores
  /** Milliseconds each adapter call may take; `0` for no limit. */
  adapterTimeout: number
  secrets: string[]
  session: SessionOptions
  jwt: JWTOptions & { builtin: boolean }
  /** The derived token keys of this configuration (sessions with the built-in codec). */
  keys: KeyRing
  /** Whether the app has its own `jwt` callback (which may change the token on any check). */
  customJwtCallback: boolean
  callbacks: Omit<CallbacksOptions, "session"> & { session?: CallbacksOptions["session"] }
  events: EventCallbacks
  pages: Partial<PagesOptions>
  theme: Required<Theme>
  /** The languages of the built-in pages and emails, with the app's sentences merged in. */
  i18n: ResolvedI18n
  logger: LoggerInstance
  /** Rate-limited warnings about bad input anyone can send (unreadable session cookies). */
  logLimiter: LogLimiter
  /** Outage trackers per store: what store failures write to the log (`lib/report.ts`). */
  storeHealth: StoreHealth
  /** What the session strategies remember between requests (speed only; see `SessionMemory`). */
  sessionMemory: SessionMemory
  /** JWT sessions: the registry (`session.registry`) and its confirmations; `undefined` when off. */
  sessionRegistry: RegistryState | undefined
  /** OAuth/OIDC metadata discovered per provider (and the JWKS oauth4webapi keys on it). */
  discovery: DiscoveryCache
  /** Provider token refreshes: options, the lock, refreshes in flight (`lib/tokens/`). */
  tokenRefresh: TokenRefreshState
  /**
   * The provider kinds this configuration uses, each loaded once (`import()`) when the
   * configuration is resolved, and their configuration checks (see `ProviderKinds`).
   */
  kinds: ConfiguredKinds
  /** The password strength estimator of the password provider's policy, built on first use (and where the policy's checks report). */
  passwordStrength: PasswordStrength
  trustHost: boolean
  /** Two-factor authentication (`twoFactor`); `undefined` when off. */
  twoFactor: ResolvedTwoFactor | undefined
  /** Security notices (`notifications`): which are mailed, by whom, and whether new devices are watched. */
  notifications: ResolvedNotifications
  /** The rate limits and lockout of this configuration (`rateLimit`); `undefined` when off. */
  rateLimit: RateLimiter | undefined
  /** Step-up re-authentication (`stepUp`, lib/step-up/): the window and where the marks live. */
  stepUp: ResolvedStepUp
  /**
   * The stored audit trail (`audit`, lib/audit/): the options, the adapter's audit capability
   * wrapped as the "audit store" (`undefined` when the adapter has none) for queries and
   * pruning, and the writer every audit event goes through (`undefined` when not storing).
   */
  audit: { options: ResolvedAuditOptions; methods: AuditStoreMethods | undefined; store: AuditStore | undefined }
  /** The configuration's extensions (`extensions`, lib/extensions/), each set up with its state. */
  extensions: ResolvedExtensions
  /** Health checks (`health`, lib/health/): whether the endpoint is served, the probes' bound, the check probes share. */
  health: ResolvedHealth
  /** OpenTelemetry (`telemetry`, lib/telemetry/): the tracer and instruments, inactive when no SDK is registered or the option is `false`. */
  telemetry: Telemetry
  /**
   * Origins besides `AUTH_URL` that may be used for URLs handed to third parties (mailed
   * links, the redirect proxy's bounce): the `trustedOrigins` option, `AUTH_TRUSTED_ORIGINS`
   * and the platform's deployment URLs. See `lib/origin-trust.ts`.
   */
  trustedOrigins: TrustedOrigins
  /** Origin and path from `AUTH_URL`, which wins over request headers. */
  siteUrl: URL | undefined
  /** Request origins already worked out (bounded; speed only, see `OriginMemo`). */
  origins: OriginMemo
  useSecureCookies: boolean | undefined
  redirectProxyUrl: string | undefined
  experimental: { enableWebAuthn: boolean }
  fetch: typeof fetch
  cookies(secure: boolean): CookiesOptions
  /**
   * The first configuration problem found synchronously (options, secrets, adapter);
   * every request answers with it until fixed. The checks that load code come after it:
   * `trustedOrigins.checked`, `i18n.checked`, then `kinds.checked` (the runtime awaits all, see `configProblem`).
   */
  error: AuthError | undefined
  env: Env
}

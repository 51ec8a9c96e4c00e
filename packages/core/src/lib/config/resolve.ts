import { PasswordStrength } from "../password-flows/strength.js"
import { I18nOptionError, resolveI18n, type ResolvedI18n } from "../i18n/index.js"
import {
  AdapterError,
  AuthError,
  EventError,
  ExperimentalFeatureNotEnabled,
  InvalidConfig,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingSecret,
  UntrustedHost,
} from "../../errors.js"
import type { ProviderConfig } from "../../providers/index.js"
import { customFetch } from "../../symbols.js"
import type { CookiesOptions, LoggerInstance, SessionOptions, Theme } from "../../base-types.js"
import type { AuthConfig, EventCallbacks } from "../../types.js"
import { defaultCookies, mergeCookies } from "../cookies.js"
import { randomHex } from "../crypto.js"
import { decodeWith, encodeWith } from "../jwt/codec.js"
import { KeyRing } from "../jwt/keys.js"
import { SessionMemory } from "../session/memory.js"
import { ProviderKinds } from "../kinds/registry.js"
import { resolveTokenRefresh } from "../tokens/state.js"
import { LogLimiter } from "../log-limiter.js"
import { noopEvent } from "./noop-event.js"
import { rateLimitAudit } from "../audit/rate-limit.js"
import { resolveAuditOptions } from "../audit/options.js"
import { AuditStore } from "../audit/store.js"
import { StoreHealth } from "../store-health.js"
import { Telemetry } from "../telemetry/index.js"
import { OriginMemo } from "../http/origin-memo.js"
import { createLogger } from "../logger.js"
import { RateLimiter } from "../rate-limit/limiter.js"
import { resolveRateLimit } from "../rate-limit/options.js"
import { defaultRedirect } from "../redirect.js"
import { applyProviderEnv, envSecrets, envTrustHost, envUrl, processEnv, type Env } from "./env.js"
import { checkShape, fallbackConfig } from "./checks.js"
import { checkProviders, narrowStores, resolveAdapterTimeout, wrapAdapter, wrapAuditStore, wrapRegistry } from "./stores.js"
import type { ResolvedExtensions } from "../extensions/shapes.js"
import { RegistryState } from "../session/registry.js"
import { resolveTwoFactor } from "../two-factor/options.js"
import { resolveNotifications } from "../notify/options.js"
import { resolveStepUp } from "../step-up/options.js"
import { resolveHealth } from "../health/options.js"
import { compileTrustedOrigins, envTrustedOrigins, type TrustedOrigins } from "./trusted-origins.js"
import type { ResolvedConfig } from "./resolved.js"
import { optionProblem } from "./problem.js"

export type { ResolvedConfig }

/**
 * Resolves `config` against `env`: every default applied, every check run. Called once per
 * runtime. A config of the wrong shape (`checks.ts`), or one whose resolution throws (a
 * provider factory, a getter), resolves to a fallback carrying the error, so every request
 * answers the configuration error instead of rejecting with a raw `TypeError`.
 */
export function resolve(config: AuthConfig, env: Env): ResolvedConfig {
  let problem: AuthError | undefined = checkShape(config)
  if (!problem) {
    try {
      return resolveChecked(config, env)
    } catch (e) {
      problem = e instanceof AuthError ? e : new InvalidConfig("The configuration could not be read", e as Error)
    }
  }
  return { ...resolveChecked(fallbackConfig(config), env), error: problem }
}

/**
 * The first configuration problem of `config`: the synchronous checks' first, else the
 * wildcard trusted origins' registrable-domain check (settled once the Public Suffix List
 * has loaded, only when there are wildcards), else the default locale's catalog failing to
 * load (its loading settles here), else the first the provider kinds' own checks
 * found (settled once, when the kinds have loaded). Every request awaits it before anything else.
 */
export async function configProblem(config: ResolvedConfig): Promise<AuthError | undefined> {
  return (await optionProblem(config)) ?? (await config.kinds.checked) ?? (await config.extensions.checked)
}

function resolveChecked(config: AuthConfig, env: Env): ResolvedConfig {
  const logger = createLogger(config.logger, !!config.debug)
  if (config.debug) logger.warn("debug-enabled")
  let error: AuthError | undefined
  const fail = (e: AuthError) => (error ??= e)

  // Each section resolves one concern and reports its first problem through `fail`.
  const siteUrl = resolveSiteUrl(env, fail)
  const basePath = resolveBasePath(config, siteUrl, fail)
  const secrets = resolveSecrets(config, env, logger, fail)
  const { trustHost, trustedOrigins } = resolveTrust(config, env, siteUrl, fail)
  const { providers, providerById } = resolveProviders(config, env, fail)

  const session = resolveSession(config, fail)
  const jwtMaxAge = config.jwt?.maxAge ?? session.maxAge
  const keys = new KeyRing()
  const jwt = {
    maxAge: jwtMaxAge,
    encode: config.jwt?.encode ?? ((params) => encodeWith(keys, params)),
    decode: config.jwt?.decode ?? (async (params) => decodeWith(keys, params).catch(() => null)),
    builtin: !config.jwt?.decode,
  }

  const adapterTimeout = resolveAdapterTimeout(config.adapterTimeout, fail)
  if (config.telemetry !== undefined && typeof config.telemetry !== "boolean") fail(new InvalidConfig(`telemetry must be true or false, got ${JSON.stringify(config.telemetry)}`))
  const telemetry = new Telemetry(config.telemetry !== false)
  const storeHealth = new StoreHealth(logger, undefined, telemetry)
  const adapter = config.adapter ? wrapAdapter(config.adapter, logger, adapterTimeout, storeHealth, telemetry) : undefined
  checkProviders(providers, config, session, adapter, fail, logger)
  const redirectProxyUrl = config.redirectProxyUrl ?? env.AUTH_REDIRECT_PROXY_URL
  // Each kind checks its own providers once its module has loaded (`kinds.checked`).
  const revocable = session.strategy === "jwt" ? session.registry !== undefined : typeof adapter?.listSessions === "function"
  const kinds = new ProviderKinds(providers, { env, redirectProxyUrl, logger, session: { strategy: session.strategy, revocable } })

  const events = wrapEvents(config.events, logger, storeHealth, adapterTimeout)
  const audit = resolveAudit(config, logger, adapterTimeout, storeHealth, telemetry, fail)
  // Stored beside the stream: both at once, each bounded and never throwing, so a slow sink
  // and a slow table cost one `adapterTimeout`, not two. The limiter reads `events.audit`
  // when it fires, so it is set before anything can.
  if (audit.store) events.audit = storeAndStream(events.audit, audit.store)
  const logLimiter = new LogLimiter(logger)
  const rateLimit = resolveRateLimit(config.rateLimit, env.NODE_ENV, fail, (settings) => new RateLimiter(settings, logLimiter, rateLimitAudit(events, secrets[0] ?? "", telemetry), secrets[0] ?? "", storeHealth))
  const tokenRefresh = resolveTokenRefresh(config.tokenRefresh, adapter, fail)
  if (!tokenRefresh.shared && typeof adapter?.updateAccount === "function") logger.warn("token-refresh-local-lock")

  const twoFactor = resolveTwoFactor(config.twoFactor, adapter, fail)
  const notifications = resolveNotifications(config.notifications, providers, fail)
  const stepUp = resolveStepUp(config.stepUp, rateLimit?.settings.store, fail)
  const health = resolveHealth(config.health, fail)
  // Loaded (and set up, and their events wired) only when there are extensions: see `pending.ts`.
  // Extensions' code (`extensions/resolve.ts`) is loaded with `import()` only when there are
  // any: a configuration without them pays nothing at startup. The runtime awaits `checked`
  // before any request (`configProblem`), so the maps are filled by then.
  const extensions: ResolvedExtensions = { byId: new Map(), inSession: [], routing: [], oidc: new Map(), checked: Promise.resolve(undefined) }
  const extended = config.extensions != null && !(Array.isArray(config.extensions) && !config.extensions.length)
  if (extended) {
    const setup = { adapter, strategy: session.strategy, logger, adapterTimeout, storeHealth, telemetry, events, secrets }
    extensions.checked = import("../extensions/resolve.js").then(
      (m) => m.resolveExtensions(config.extensions, setup, extensions),
      (e: unknown) => new InvalidConfig("The extensions' code could not be loaded", e as Error),
    )
  }
  const appJwt: ResolvedConfig["callbacks"]["jwt"] = config.callbacks?.jwt ?? (({ token }) => token)

  const theme: Required<Theme> = { colorScheme: "auto", logo: "", brandColor: "", buttonText: "", layout: "identifier", ...config.theme }
  const i18n = resolveI18nOption(config.i18n, fail)
  const cookieVariants: Partial<Record<"secure" | "plain", CookiesOptions>> = {}

  return {
    basePath,
    providers,
    providerById,
    adapter,
    stores: narrowStores(adapter),
    adapterTimeout,
    secrets,
    session,
    jwt,
    keys,
    callbacks: {
      signIn: config.callbacks?.signIn ?? (() => true),
      redirect: config.callbacks?.redirect ?? defaultRedirect,
      // Extensions' JWT claims (`extensions/claims.ts`), loaded with them.
      jwt: extended ? async (params) => (await import("../extensions/claims.js")).withExtensionClaims({ extensions, logger }, appJwt)(params) : appJwt,
      session: config.callbacks?.session,
      authorized: config.callbacks?.authorized,
    },
    customJwtCallback: typeof config.callbacks?.jwt === "function" || extended,
    events,
    pages: config.pages ?? {},
    theme,
    i18n,
    logger,
    logLimiter,
    storeHealth,
    sessionMemory: new SessionMemory(),
    sessionRegistry: session.registry ? new RegistryState(wrapRegistry(session.registry, logger, adapterTimeout, storeHealth, telemetry), session.revocationCheckInterval * 1000) : undefined,
    discovery: new WeakMap(),
    tokenRefresh,
    kinds,
    passwordStrength: new PasswordStrength(async () => (await kinds.load("password")).tools.buildEstimator(), logLimiter),
    trustHost,
    twoFactor,
    notifications,
    rateLimit,
    stepUp,
    health,
    extensions,
    audit,
    telemetry,
    trustedOrigins,
    siteUrl,
    origins: new OriginMemo(),
    useSecureCookies: config.useSecureCookies,
    redirectProxyUrl,
    experimental: { enableWebAuthn: !!config.experimental?.enableWebAuthn },
    fetch: config[customFetch] ?? ((...args: Parameters<typeof fetch>) => fetch(...args)),
    cookies(secure) {
      const key = secure ? "secure" : "plain"
      return (cookieVariants[key] ??= mergeCookies(defaultCookies(secure), config.cookies))
    },
    error,
    env,
  }
}

type Fail = (e: AuthError) => void

/** The `audit` option and the adapter's audit capability, when it has one. */
function resolveAudit(config: AuthConfig, logger: LoggerInstance, adapterTimeout: number, storeHealth: StoreHealth, telemetry: Telemetry, fail: Fail): ResolvedConfig["audit"] {
  const options = resolveAuditOptions(config.audit, fail)
  const methods = config.adapter ? wrapAuditStore(config.adapter, logger, adapterTimeout, storeHealth, telemetry) : undefined
  const store = methods && options.store ? new AuditStore(methods, options, storeHealth.of("audit store"), logger) : undefined
  return { options, methods, store }
}

/** The `audit` event as delivered: to the app's handler (if any) and to the store. */
function storeAndStream(stream: EventCallbacks["audit"], store: AuditStore): EventCallbacks["audit"] {
  if (stream === noopEvent) return (event) => store.record(event)
  return async (event) => {
    await Promise.all([stream(event), store.record(event)])
  }
}

/** The `i18n` option; a problem with it is a configuration error, and English is used meanwhile. */
function resolveI18nOption(options: AuthConfig["i18n"], fail: Fail): ResolvedI18n {
  try {
    return resolveI18n(options)
  } catch (e) {
    fail(new InvalidConfig(e instanceof I18nOptionError ? e.message : "i18n could not be read", e as Error))
    return resolveI18n(undefined)
  }
}

/** `AUTH_URL` (or `NEXTAUTH_URL`): the site's own origin and path, which wins over headers. */
function resolveSiteUrl(env: Env, fail: Fail): URL | undefined {
  const fromEnv = envUrl(env)
  if (!fromEnv) return undefined
  try {
    const url = new URL(fromEnv)
    if (url.protocol === "http:" || url.protocol === "https:") return url
  } catch {
    // reported below
  }
  fail(new InvalidConfig(`AUTH_URL is not an absolute http(s) URL: ${JSON.stringify(fromEnv)}`))
  return undefined
}

/** The option, else `AUTH_URL`'s path, else `/auth`; without a trailing slash. */
function resolveBasePath(config: AuthConfig, siteUrl: URL | undefined, fail: Fail): string {
  const basePath = (config.basePath ?? (siteUrl && siteUrl.pathname !== "/" ? siteUrl.pathname : "/auth")).replace(/\/+$/, "")
  if ((basePath && !basePath.startsWith("/")) || /[?#\s]/.test(basePath)) {
    fail(new InvalidConfig(`basePath must be a path starting with "/", got ${JSON.stringify(config.basePath)}`))
  }
  return basePath
}

/** The option's secrets, else the environment's; newest first. */
function resolveSecrets(config: AuthConfig, env: Env, logger: LoggerInstance, fail: Fail): string[] {
  const secrets = normaliseSecrets(config.secret) ?? envSecrets(env)
  if (!secrets.length) {
    fail(new MissingSecret("No secret configured. Set AUTH_SECRET (generate one with `npx @portcullis/cli secret`) or the `secret` option."))
  } else if (secrets[0]!.length < 32) {
    logger.warn("short-secret")
  }
  return secrets
}

/** `trustHost` and the compiled `trustedOrigins`; a site with neither nor `AUTH_URL` has no origin to trust. */
function resolveTrust(config: AuthConfig, env: Env, siteUrl: URL | undefined, fail: Fail): { trustHost: boolean; trustedOrigins: TrustedOrigins } {
  const trustHost = config.trustHost ?? envTrustHost(env)
  let trustedOrigins = compileTrustedOrigins([])
  try {
    trustedOrigins = compileTrustedOrigins([...(config.trustedOrigins ?? []), ...envTrustedOrigins(env)])
  } catch (e) {
    fail(e instanceof AuthError ? e : new InvalidConfig("trustedOrigins could not be read", e as Error))
  }
  if (!trustHost && !siteUrl && !trustedOrigins.patterns.length) {
    fail(
      new UntrustedHost(
        "The Host header is not trusted. Set AUTH_URL to the site's URL, list the origins in trustedOrigins (AUTH_TRUSTED_ORIGINS), or trustHost: true (AUTH_TRUST_HOST=true) behind a proxy that sets Host.",
      ),
    )
  }
  return { trustHost, trustedOrigins }
}

/** Providers normalised (preset ← env ← options), with unique, URL-safe ids. */
function resolveProviders(config: AuthConfig, env: Env, fail: Fail): { providers: ProviderConfig[]; providerById: Map<string, ProviderConfig> } {
  const providers: ProviderConfig[] = []
  const providerById = new Map<string, ProviderConfig>()
  for (const p of config.providers) {
    let provider: ProviderConfig
    try {
      provider = normaliseProvider(p, env)
    } catch (e) {
      fail(new InvalidConfig("A provider factory threw", e as Error))
      continue
    }
    if (typeof provider?.id !== "string" || !provider.id || !/^[\w.-]{1,64}$/.test(provider.id)) {
      fail(new InvalidConfig(`Provider ids must be 1-64 letters, digits, '-', '_' or '.', got ${JSON.stringify(provider?.id)}`))
      continue
    }
    if (providerById.has(provider.id)) {
      fail(new InvalidConfig(`Two providers have the id "${provider.id}"; give one of them another id`))
      continue
    }
    providers.push(provider)
    providerById.set(provider.id, provider)
  }
  return { providers, providerById }
}

function normaliseSecrets(secret: AuthConfig["secret"]): string[] | undefined {
  if (secret === undefined || secret === "") return undefined
  const list = (Array.isArray(secret) ? secret : [secret]).filter((s) => typeof s === "string" && s)
  return list.length ? list : undefined
}

function resolveSession(config: AuthConfig, fail: (e: AuthError) => void): SessionOptions {
  const s = config.session ?? {}
  const strategy = s.strategy ?? (config.adapter ? "database" : "jwt")
  if (strategy !== "jwt" && strategy !== "database") fail(new InvalidConfig(`session.strategy must be "jwt" or "database", got ${JSON.stringify(strategy)}`))
  const maxAge = s.maxAge ?? 30 * 24 * 60 * 60
  const updateAge = s.updateAge ?? 24 * 60 * 60
  if (!Number.isFinite(maxAge) || maxAge <= 0) fail(new InvalidConfig(`session.maxAge must be a positive number of seconds, got ${JSON.stringify(maxAge)}`))
  if (!Number.isFinite(updateAge) || updateAge < 0) fail(new InvalidConfig(`session.updateAge must be a number of seconds >= 0, got ${JSON.stringify(updateAge)}`))
  if (strategy === "database" && !config.adapter) fail(new MissingAdapter('session.strategy "database" needs an adapter'))
  const revocationCheckInterval = s.revocationCheckInterval ?? 60
  if (!Number.isFinite(revocationCheckInterval) || revocationCheckInterval < 0) fail(new InvalidConfig(`session.revocationCheckInterval must be a number of seconds >= 0, got ${JSON.stringify(revocationCheckInterval)}`))
  const { absoluteMaxAge, registry } = s
  if (absoluteMaxAge !== undefined && (typeof absoluteMaxAge !== "number" || !Number.isFinite(absoluteMaxAge) || absoluteMaxAge <= 0)) {
    fail(new InvalidConfig(`session.absoluteMaxAge must be a positive number of seconds, got ${JSON.stringify(absoluteMaxAge)}`))
  }
  const unverifiedMaxAge = s.unverifiedMaxAge ?? maxAge
  if (typeof unverifiedMaxAge !== "number" || !Number.isFinite(unverifiedMaxAge) || unverifiedMaxAge <= 0) {
    fail(new InvalidConfig(`session.unverifiedMaxAge must be a positive number of seconds, got ${JSON.stringify(unverifiedMaxAge)}`))
  }
  const metadata = s.metadata === true
  // Without the row's creation time there is nothing to measure the lifetime from.
  if (absoluteMaxAge !== undefined && strategy === "database" && !metadata) {
    fail(new InvalidConfig("session.absoluteMaxAge with database sessions needs session.metadata: true (the createdAt column `portcullis migrate` adds)"))
  }
  if (registry !== undefined) {
    const missing = (["add", "touch", "list", "remove", "removeAll"] as const).filter((m) => typeof (registry as unknown as Record<string, unknown>)?.[m] !== "function")
    if (missing.length) fail(new InvalidConfig(`session.registry lacks ${missing.join(", ")}`))
    if (strategy === "database") fail(new InvalidConfig("session.registry is for JWT sessions; database sessions are listed through the adapter (listSessions)"))
  }
  return {
    strategy,
    maxAge,
    updateAge,
    // 256 random bits (a UUID carries only 122): the token is the whole secret of the session.
    generateSessionToken: s.generateSessionToken ?? (() => randomHex(32)),
    hashTokens: s.hashTokens === true,
    revocationCheckInterval,
    metadata,
    unverifiedMaxAge,
    ...(absoluteMaxAge !== undefined ? { absoluteMaxAge } : {}),
    ...(registry !== undefined && strategy === "jwt" ? { registry } : {}),
  }
}

/**
 * Provider objects may be factories, and carry the user's `options`. Layers, weakest
 * first: the preset's defaults, the environment (`AUTH_<ID>_ID`, `_SECRET`, `_ISSUER`,
 * `_KEY`), then the options the app passed — so an env issuer beats a preset's default
 * issuer, and an explicit option beats both. A provider object the app wrote out itself
 * (no preset, so no `options`) is all explicit: the environment only fills its gaps.
 */
function normaliseProvider(p: AuthConfig["providers"][number], env: Env): ProviderConfig {
  const base = typeof p === "function" ? p() : p
  const { options, ...defaults } = base as ProviderConfig & { options?: Record<string, unknown> }
  const id = (options?.id as string | undefined) ?? defaults.id
  const type = (options?.type as ProviderConfig["type"] | undefined) ?? defaults.type
  const fromEnv = { ...(applyProviderEnv({ id, type } as ProviderConfig, env) as unknown as Record<string, unknown>), id: undefined, type: undefined }
  // A provider object with no `options` is no preset: the app wrote every field of it, so
  // what it sets beats the environment (as Auth.js's `clientId ??= AUTH_<ID>_ID`).
  const explicit = typeof p !== "function" && options === undefined
  const withEnv = explicit ? deepMerge(fromEnv, defaults as Record<string, unknown>) : deepMerge(defaults as Record<string, unknown>, fromEnv)
  return (options ? deepMerge(withEnv, options) : withEnv) as ProviderConfig
}

function isPlainObject(v: unknown): v is Record<string | symbol, unknown> {
  if (!v || typeof v !== "object") return false
  const proto = Object.getPrototypeOf(v)
  return proto === Object.prototype || proto === null
}

/** Merges plain objects key by key (symbol keys too); arrays and other values replace. */
function deepMerge<T extends Record<string | symbol, any>>(target: T, source: Record<string | symbol, unknown>): T {
  const out: Record<string | symbol, unknown> = { ...target }
  for (const key of Reflect.ownKeys(source)) {
    if (key === "__proto__" || key === "constructor") continue
    const value = source[key]
    if (value === undefined) continue
    out[key] = isPlainObject(value) && isPlainObject(out[key]) ? deepMerge(out[key] as any, value) : value
  }
  return out as T
}

/**
 * Events are for auditing: a throwing handler is logged and never changes the flow. The
 * `audit` handler is a sink (an audit table, a queue) that every refused request writes to,
 * so its failures are an outage, tracked as the "audit sink" store: a forged request per
 * failure would otherwise write an error and a stack each. And like a store call it is
 * bounded by `adapterTimeout`: a sink that accepts and never answers would otherwise hold
 * every refused sign-in open (a client's wrong passwords piling up requests and sockets);
 * past the bound the event counts as lost (an "audit sink" failure) and the flow goes on.
 */
function wrapEvents(events: Partial<EventCallbacks> | undefined, logger: LoggerInstance, storeHealth: StoreHealth, adapterTimeout: number): EventCallbacks {
  const names = ["signIn", "signOut", "createUser", "updateUser", "linkAccount", "session", "rateLimited", "sessionRevoked", "securityNotice", "twoFactorReset", "audit"] as const
  const out = {} as Record<string, (message: any) => Promise<void>>
  for (const name of names) {
    const handler = events?.[name] as ((m: unknown) => unknown) | undefined
    const sink = handler && name === "audit" ? storeHealth.of("audit sink") : undefined
    out[name] = handler
      ? async (message) => {
          try {
            const run = handler(message)
            await (sink && adapterTimeout > 0 ? settledWithin(Promise.resolve(run), adapterTimeout) : run)
          } catch (e) {
            const error = new EventError(`The ${name} event handler threw`, e as Error)
            if (sink) sink.failed(error)
            else logger.error(error)
            return
          }
          if (sink?.failing) sink.recovered()
        }
      : noopEvent
  }
  return out as unknown as EventCallbacks
}

/** `run`, or a rejection once `ms` have passed first (a later rejection of `run` is then not unhandled). */
function settledWithin(run: Promise<unknown>, ms: number): Promise<unknown> {
  let timer: ReturnType<typeof setTimeout> | undefined
  run.catch(() => {})
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`The handler did not finish within adapterTimeout (${ms} ms)`)), ms)
  })
  return Promise.race([run, late]).finally(() => clearTimeout(timer))
}

export { noopEvent }

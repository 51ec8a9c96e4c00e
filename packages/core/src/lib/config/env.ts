import type { AuthAction } from "../../base-types.js"
import type { AuthConfig } from "../../types.js"
import type { ProviderConfig } from "../../providers/index.js"
import { originFromHeaders } from "../http/host.js"
import { createLogger } from "../logger.js"

/** Environment variables as a plain record (`process.env`, `import.meta.env`, a Worker's `env`). */
export type Env = Record<string, string | undefined>

/** The process environment where there is one (Node, Bun, Deno's compat); `{}` on edge runtimes. */
export function processEnv(): Env {
  return ((globalThis as any).process?.env as Env | undefined) ?? {}
}

/** Parses a boolean-ish variable; `undefined` when unset or unrecognised. */
function envFlag(value: string | undefined): boolean | undefined {
  if (value === undefined || value === "") return undefined
  const v = value.trim().toLowerCase()
  if (v === "true" || v === "1" || v === "yes") return true
  if (v === "false" || v === "0" || v === "no") return false
  return undefined
}

/** `AUTH_URL`, or the legacy `NEXTAUTH_URL`. */
export function envUrl(env: Env): string | undefined {
  return env.AUTH_URL || env.NEXTAUTH_URL || undefined
}

/**
 * Secrets from the environment, newest first: `AUTH_SECRET_3`, `_2`, `_1`, then
 * `AUTH_SECRET` (or the legacy `NEXTAUTH_SECRET`). The highest number encrypts new tokens,
 * as in Auth.js, so rotating is: add `AUTH_SECRET_1` with the new value, deploy, later drop
 * the old one.
 */
export function envSecrets(env: Env): string[] {
  const list: string[] = []
  for (const i of [3, 2, 1]) {
    const s = env[`AUTH_SECRET_${i}`]
    if (s) list.push(s)
  }
  const main = env.AUTH_SECRET || env.NEXTAUTH_SECRET
  if (main) list.push(main)
  return list
}

/** Whether the `Host`/`X-Forwarded-*` headers may be believed. */
export function envTrustHost(env: Env): boolean {
  if (envUrl(env)) return true
  const flag = envFlag(env.AUTH_TRUST_HOST)
  if (flag !== undefined) return flag
  if (env.VERCEL || env.CF_PAGES) return true
  return env.NODE_ENV !== "production"
}

/** Upper snake case of a provider id: `microsoft-entra-id` → `MICROSOFT_ENTRA_ID`. */
export function envProviderId(id: string): string {
  return id.toUpperCase().replace(/[^A-Z0-9]/g, "_")
}

/** Fills a provider's credentials from `AUTH_<ID>_ID`, `_SECRET`, `_ISSUER`, `_KEY` where unset. */
export function applyProviderEnv(provider: ProviderConfig, env: Env): ProviderConfig {
  const ID = envProviderId(provider.id)
  if (provider.type === "oauth" || provider.type === "oidc") {
    const p = provider as ProviderConfig & { clientId?: string; clientSecret?: string; issuer?: string }
    const clientId = p.clientId ?? env[`AUTH_${ID}_ID`]
    const clientSecret = p.clientSecret ?? env[`AUTH_${ID}_SECRET`]
    const issuer = p.issuer ?? env[`AUTH_${ID}_ISSUER`]
    return { ...p, ...(clientId && { clientId }), ...(clientSecret && { clientSecret }), ...(issuer && { issuer }) } as ProviderConfig
  }
  if (provider.type === "email") {
    const apiKey = provider.apiKey ?? env[`AUTH_${ID}_KEY`]
    return apiKey ? { ...provider, apiKey } : provider
  }
  return provider
}

/**
 * Applies the environment to `config` in place, as Auth.js's `setEnvDefaults` does:
 * secret(s), basePath from `AUTH_URL`, `trustHost`, `redirectProxyUrl` and provider
 * credentials. `Auth()` applies the same defaults itself without mutating; integrations
 * call this to see the effective values.
 */
export function setEnvDefaults(env: Env, config: AuthConfig, suppressBasePathWarning = false): void {
  const url = envUrl(env)
  try {
    if (url) {
      const path = new URL(url).pathname
      if (config.basePath) {
        if (!suppressBasePathWarning) createLogger(config.logger, !!config.debug).warn("env-url-basepath-redundant")
      } else if (path !== "/") {
        config.basePath = path.replace(/\/+$/, "")
      }
    }
  } catch {
    // An unparsable AUTH_URL is reported by the config check of the first request.
  }
  config.basePath ||= "/auth"
  if (!config.secret || (Array.isArray(config.secret) && !config.secret.length)) {
    const secrets = envSecrets(env)
    if (secrets.length) config.secret = secrets
  }
  config.redirectProxyUrl ??= env.AUTH_REDIRECT_PROXY_URL
  config.trustHost ??= envTrustHost(env)
  config.providers = config.providers.map((p) => applyProviderEnv(typeof p === "function" ? p() : p, env))
}

/**
 * The absolute URL of an action, as integrations need it for server-side calls, as
 * Auth.js builds it. With `AUTH_URL` set, its origin — and its path too when `basePath` is
 * unset (or `/`), so `AUTH_URL=https://app.example/api/auth` gives
 * `https://app.example/api/auth/session`; when both name a path and they differ (a trailing
 * slash counts), `basePath` wins and `env-url-basepath-mismatch` is logged. Without
 * `AUTH_URL`, the (forwarded) host and protocol of the request, then `basePath`; whether
 * those headers may be believed is decided by `Auth()` (`trustHost`) when the URL reaches it.
 *
 * @example
 * createActionURL("session", "https", request.headers, process.env, { basePath: "/api/auth" })
 * // → URL("https://app.example/api/auth/session")
 *
 * @throws InvalidRequest when the host or protocol headers are malformed.
 */
export function createActionURL(
  action: AuthAction,
  protocol: string,
  headers: Headers,
  env: Env,
  config: Pick<AuthConfig, "basePath" | "logger" | "debug">,
): URL {
  const basePath = config.basePath
  const fromEnv = envUrl(env)
  let base: string
  if (fromEnv) {
    const url = new URL(fromEnv)
    let path = url.pathname
    if (basePath && basePath !== "/" && path !== "/") {
      if (path !== basePath) createLogger(config.logger, !!config.debug).warn("env-url-basepath-mismatch")
      path = "/"
    }
    base = `${url.origin}${path}`.replace(/\/+$/, "")
  } else {
    // Checked before any URL is built: a hostile header is an InvalidRequest (400), never
    // a TypeError, a `null` origin or a path smuggled into the base.
    base = originFromHeaders({
      host: headers.get("host"),
      protocol: protocol || "https",
      forwardedHost: headers.get("x-forwarded-host"),
      forwardedProto: headers.get("x-forwarded-proto"),
      trustForwarded: true,
    })
  }
  const path = (basePath ?? "").replace(/^\/+|\/+$/g, "")
  return new URL(`${base}${path ? `/${path}` : ""}/${action}`)
}


import { AuthError, InvalidConfig, InvalidEndpoints } from "../../errors.js"
import type { OAuthChecks, OAuthConfig } from "../../providers/oauth.js"
import type { Env } from "../config/env.js"
import { assertSecureUrl, httpPolicy } from "./http.js"

/** The client authentication methods at the token endpoint (Auth.js's set). */
const authMethods: ReadonlySet<string> = new Set(["client_secret_basic", "client_secret_post", "client_secret_jwt", "private_key_jwt", "none"])

/** What checking one OAuth/OIDC provider's configuration found. */
export interface OAuthConfigCheck {
  /** The first problem: answered as a configuration error on every request, as in Auth.js. */
  error?: AuthError
  /** The first plain-`http:` endpoint, allowed outside production (worth one warning). */
  insecureUrl?: string
}

/**
 * Checks an OAuth/OIDC provider when the configuration is resolved, not when it is first
 * used: without an issuer every endpoint must be configured (Auth.js's `InvalidEndpoints`),
 * every configured URL (`issuer`, `wellKnown`, `authorization`, `token`, `userinfo`) must
 * be an absolute URL that the http policy allows (see `HttpPolicy`), and `checks` must be
 * known ones. Syntax only: nothing is fetched here (discovery happens at sign-in).
 *
 * @example
 * checkOAuthConfig({ id: "kc", type: "oidc", issuer: "http://keycloak:8080/realms/app" }, { NODE_ENV: "production" })
 * // → { error: InvalidEndpoints("… is not https. In production …") }
 */
export function checkOAuthConfig(provider: OAuthConfig<any>, env: Env, redirectProxyUrl?: string): OAuthConfigCheck {
  try {
    return { insecureUrl: checkOrThrow(provider, env, redirectProxyUrl) }
  } catch (e) {
    return { error: e instanceof AuthError ? e : new InvalidConfig(`Provider "${provider.id}" could not be checked`, e as Error) }
  }
}

function checkOrThrow(provider: OAuthConfig<any>, env: Env, redirectProxyUrl: string | undefined): string | undefined {
  const id = provider.id
  const issuer = configuredUrl(provider.issuer, "issuer", id)
  const wellKnown = configuredUrl(provider.wellKnown, "wellKnown", id)
  const endpoints = {
    authorization: configuredEndpoint(provider.authorization, "authorization endpoint", id),
    token: configuredEndpoint(provider.token, "token endpoint", id),
    userinfo: configuredEndpoint(provider.userinfo, "userinfo endpoint", id),
  }
  if (!issuer && !wellKnown) {
    // A userinfo endpoint of one's own (`userinfo.request`) needs no URL.
    const ownUserinfo = hasOwnUserinfo(provider)
    const missing = !endpoints.authorization ? "authorization" : !endpoints.token ? "token" : !endpoints.userinfo && !ownUserinfo && provider.type === "oauth" ? "userinfo" : undefined
    if (missing) {
      throw new InvalidEndpoints(`Provider "${id}" is missing both \`issuer\` and \`${missing}\` endpoint config. At least one of them is required`)
    }
  }
  const policy = httpPolicy(env, provider.allowInsecureLoopback)
  let insecure: string | undefined
  for (const [what, url] of [["issuer", issuer], ["wellKnown URL", wellKnown], ...Object.entries(endpoints).map(([k, v]) => [`${k} endpoint`, v] as const)] as const) {
    if (!url) continue
    assertSecureUrl(url, policy, `${what} of provider "${id}"`)
    if (url.protocol === "http:") insecure ??= url.origin
  }
  resolveChecks(provider, false)
  const method = provider.client?.token_endpoint_auth_method
  if (method !== undefined && !authMethods.has(method)) {
    throw new InvalidConfig(`Provider "${id}": token_endpoint_auth_method ${JSON.stringify(method)} is not supported (use one of ${[...authMethods].join(", ")})`)
  }
  if (method === "private_key_jwt" && !(typeof provider.token === "object" && provider.token.clientPrivateKey)) {
    throw new InvalidConfig(`Provider "${id}" uses private_key_jwt but has no token.clientPrivateKey`)
  }
  const proxy = configuredUrl(provider.redirectProxyUrl ?? redirectProxyUrl, "redirectProxyUrl", id)
  if (proxy && proxy.protocol !== "https:" && proxy.protocol !== "http:") throw new InvalidConfig(`Provider "${id}": redirectProxyUrl must be an http(s) URL`)
  return insecure
}

/**
 * The URL of a configured endpoint, given as a string, a `URL` or `{ url }` (its query is
 * kept: Facebook's `fields`); `undefined` when none is set. Sign-in reads the endpoints
 * through this too, so what was checked here is what is used.
 */
export function configuredEndpoint(endpoint: unknown, what: string, id: string): URL | undefined {
  const value = endpoint && typeof endpoint === "object" && !(endpoint instanceof URL) ? (endpoint as { url?: unknown }).url : endpoint
  return configuredUrl(value, what, id)
}

/** Whether the provider fetches the profile itself (`userinfo.request`), needing no URL. */
export function hasOwnUserinfo(provider: OAuthConfig<any>): boolean {
  return typeof provider.userinfo === "object" && typeof provider.userinfo?.request === "function"
}

function configuredUrl(value: unknown, what: string, id: string): URL | undefined {
  if (value === undefined || value === null || value === "") return undefined
  if (typeof value !== "string" && !(value instanceof URL)) throw new InvalidEndpoints(`Provider "${id}": the ${what} must be a URL string`)
  try {
    return new URL(String(value))
  } catch {
    throw new InvalidEndpoints(`Provider "${id}": the ${what} is not an absolute URL: ${JSON.stringify(String(value).slice(0, 100))}`)
  }
}

/** A check that binds a round trip to the browser that started it. */
export type Check = Exclude<OAuthChecks, "none">

/**
 * Default checks. Auth.js uses only `pkce`; state and nonce cost nothing and close login
 * CSRF and code-injection holes on providers that ignore PKCE.
 */
const defaultChecks: Record<"oauth" | "oidc", Check[]> = {
  oauth: ["pkce", "state"],
  oidc: ["pkce", "state", "nonce"],
}

/** The checks of a provider, validated; `proxied` adds `state` (it carries the origin). */
export function resolveChecks(provider: OAuthConfig<any>, proxied: boolean): Set<Check> {
  const configured = provider.checks ?? defaultChecks[provider.type]
  if (!Array.isArray(configured)) throw new InvalidConfig(`checks of provider "${provider.id}" must be an array`)
  const checks = new Set<Check>()
  for (const check of configured) {
    if (check === "none") continue
    if (check !== "pkce" && check !== "state" && check !== "nonce") {
      throw new InvalidConfig(`Provider "${provider.id}" has an unknown check ${JSON.stringify(check)}`)
    }
    checks.add(check)
  }
  // "none" switches everything off, as in Auth.js; listing it with others is a contradiction.
  if (configured.includes("none") && checks.size) {
    throw new InvalidConfig(`Provider "${provider.id}" lists "none" together with other checks`)
  }
  // The state carries the origin to return to, so a proxied sign-in always has one.
  if (proxied) checks.add("state")
  return checks
}

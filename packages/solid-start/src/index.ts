/**
 * Portcullis for SolidStart.
 *
 * `SolidAuth(config)` returns the `GET` and `POST` handlers of a catch-all API route under
 * `prefix` (default `/api/auth`); the base path of every endpoint is derived from it, so
 * callback URLs, the built-in pages and `getSession` all agree on one place.
 *
 * @example
 * ```ts
 * // src/auth.ts
 * import type { SolidAuthConfig } from "@portcullis/solid-start"
 * import GitHub from "@portcullis/core/providers/github"
 * export const authOptions: SolidAuthConfig = { providers: [GitHub] }
 *
 * // src/routes/api/auth/[...solidauth].ts
 * import { SolidAuth } from "@portcullis/solid-start"
 * import { authOptions } from "~/auth"
 * export const { GET, POST } = SolidAuth(authOptions)
 *
 * // anywhere on the server ("use server" functions, API routes, middleware)
 * import { getRequestEvent } from "solid-js/web"
 * import { getSession } from "@portcullis/solid-start"
 * const session = await getSession(getRequestEvent()!.request, authOptions)
 * ```
 * @module
 */
import type { AccessToken, AuthConfig, Cookie, Session } from "@portcullis/core"
import { extensionFunctions, originOfUrl, readAccessToken, readSession, runtimeFor, sessionManager, type AuthRuntime, type CookieSink, type ExtensionFunctions, type SessionManager } from "@portcullis/core/integration"

export type { AccessToken, Account, DefaultSession, Profile, Session, SessionInfo, User } from "@portcullis/core"
export type { CookieSink, SessionManager } from "@portcullis/core/integration"
export type { Extension, ExtensionCall, ExtensionFunctions } from "@portcullis/core/extension"
/** Account recovery for support staff (docs/two-factor.md, "Lost your authenticator"): `resetTwoFactor({ userId, reason, actor }, config)`. */
export { resetTwoFactor, type TwoFactorResetInput, type TwoFactorResetResult } from "@portcullis/core/integration"
/** Health checks for load balancers and Kubernetes probes (docs/observability.md, "Health checks"): `health(config)`, or `health: { endpoint: true }` for `GET <basePath>/health`. */
export { health, type HealthCheckOptions, type HealthReport, type HealthStatus, type StoreCheck } from "@portcullis/core/integration"
/** The stored audit trail (docs/observability.md, "Storing the audit trail"): `auditTrail(config, { userId, type, since, until, limit, cursor })`, and `pruneAuditTrail(config)` for a scheduled job. */
export { auditTrail, pruneAuditTrail, type AuditPage, type AuditQuery } from "@portcullis/core/integration"
export { AuditTrailUnsupported, InvalidAuditQuery } from "@portcullis/core/errors"
export { ReauthRequired, TokenRefreshFailed } from "@portcullis/core/errors"
export { customFetch } from "@portcullis/core"
export { AuthError, CredentialsSignin, InvalidRequest, NotSignedIn, ServiceUnavailable, SessionManagementUnsupported } from "@portcullis/core/errors"

/** Configuration of {@link SolidAuth}: the core configuration plus `prefix`. */
export interface SolidAuthConfig extends Omit<AuthConfig, "raw"> {
  /**
   * Path of the catch-all route (`src/routes/api/auth/[...solidauth].ts` → `/api/auth`).
   * Becomes `basePath` unless that is set too. Default `/api/auth`.
   */
  prefix?: string
}

/** The part of SolidStart's `APIEvent` the handlers read. */
/** What {@link getSession} resolves to, as `@auth/solid-start` names it. */
export type GetSessionResult = Promise<Session | null>

export interface SolidAuthEvent {
  request: Request
}

export type SolidAuthHandler = (event: SolidAuthEvent) => Promise<Response>

/**
 * The runtime of `config`: one per SolidStart config object, serving the route handlers and
 * `getSession` alike. The core configuration (with `basePath` from `prefix`) is built once,
 * when the runtime is; the `WeakMap` ties it to the app's config object, which core's own
 * registry cannot do because it sees only the derived object.
 */
const runtimes = new WeakMap<SolidAuthConfig, AuthRuntime>()

function runtimeOf(config: SolidAuthConfig): AuthRuntime {
  let runtime = runtimes.get(config)
  if (!runtime) {
    const { prefix = "/api/auth", ...rest } = config
    runtime = runtimeFor({ ...rest, basePath: (config.basePath ?? prefix).replace(/\/+$/, "") })
    runtimes.set(config, runtime)
  }
  return runtime
}

/**
 * Route handlers for every Portcullis endpoint, including `webauthn-options`. Mount them on a
 * catch-all route at `prefix`; a request for an unknown action gets core's 400 answer, and so
 * does a malformed host or (with `trustHost`) forwarded header: core checks the request it
 * is handed, which here is the framework's own.
 */
export function SolidAuth(config: SolidAuthConfig): { GET: SolidAuthHandler; POST: SolidAuthHandler } {
  const runtime = runtimeOf(config)
  const handler: SolidAuthHandler = (event) => runtime.handle(event.request)
  return { GET: handler, POST: handler }
}

/**
 * The session of a request, or `null`. Only the request's cookies are forwarded to core, and
 * the endpoint is found from `prefix`/`basePath` (Auth.js hard-codes `/api/auth`).
 * A cookie refresh the session check may produce is not sent (there is no response here);
 * the browser's next `<prefix>/session` call refreshes it.
 *
 * @throws `ServiceUnavailable` (from `@portcullis/core/errors`) when the session store is
 * down or slow (`adapterTimeout`): an outage is not a sign-out. `InvalidRequest` when the
 * request's host or protocol is malformed (`javascript:`, a port out of range): answer it
 * with a 400. `Error` when core answers with another error (a configuration problem, for
 * instance).
 *
 * @example
 * ```ts
 * import { ServiceUnavailable } from "@portcullis/core/errors"
 *
 * const session = await getSession(request, authOptions).catch((error) => {
 *   if (error instanceof ServiceUnavailable) throw new Response("Please try again shortly", { status: 503, headers: { "Retry-After": "5" } })
 *   throw error
 * })
 * ```
 */
export async function getSession(request: Request, options: SolidAuthConfig): Promise<Session | null> {
  // The origin is checked before a URL is built: the framework made `request.url` from the Host header.
  return readSession(originOfUrl(request.url), request.headers.get("cookie"), runtimeOf(options))
}

/**
 * Session management for a request (`docs/sessions.md`): `list()`, `revoke(id, csrfToken?)`,
 * `revokeOthers(csrfToken?)`, `signOutEverywhere(csrfToken?)`. Changes pass the form's
 * `csrfToken` to have core check it; without one only the request's `Origin` is checked
 * (call them from server actions or POST handlers, which SolidStart keeps same-origin).
 * Cookies a change clears (revoking the current session) go to `setCookie`, e.g. vinxi's
 * `setCookie(event, name, value, options)`.
 *
 * @throws `InvalidRequest` for a malformed host; the calls throw `NotSignedIn`,
 * `SessionManagementUnsupported`, `ServiceUnavailable`.
 * @example
 * ```ts
 * const sessions = await sessionsOf(request, authOptions).list()
 * ```
 */
export function sessionsOf(request: Request, options: SolidAuthConfig, setCookie?: CookieSink): SessionManager {
  return sessionManager(originOfUrl(request.url), request.headers, runtimeOf(options), setCookie)
}

/**
 * A valid access token of the signed-in user's account with `provider`, refreshed first
 * when it expires within `tokenRefresh.skew`; concurrent calls make one refresh. With JWT
 * sessions (`tokenRefresh.jwt`) a rotation re-issues the session cookie: pass `setCookie`
 * (vinxi's `setCookie(event, name, value, options)`) to send it; otherwise the browser's
 * next `<prefix>/session` call does. See `docs/tokens.md`.
 *
 * @throws `ReauthRequired` (sign in with the provider again), `TokenRefreshFailed` (retry
 * later), `InvalidRequest` (a malformed host).
 *
 * @example
 * ```ts
 * const { accessToken } = await getAccessToken(getRequestEvent()!.request, authOptions, { provider: "github" })
 * ```
 */
export function getAccessToken(
  request: Request,
  options: SolidAuthConfig,
  params: { provider: string; setCookie?: (cookie: Cookie) => void },
): Promise<AccessToken> {
  return readAccessToken(originOfUrl(request.url), request.headers.get("cookie"), runtimeOf(options), params.provider, params.setCookie)
}

/**
 * The server functions of the configured extensions (`docs/extensions.md`), by extension id,
 * bound to `request`: its session, language and method. Typed from `options`' `extensions`
 * (declare the config with `satisfies SolidAuthConfig`, not a type annotation, so the
 * extensions' types are kept). Pass `clientAddress` (SolidStart's
 * `getRequestEvent()!.clientAddress`) for the extensions' per-address rate limits.
 *
 * A request that can change something (not `GET`/`HEAD`: a `"use server"` function is a
 * POST) from another site (its `Origin`, or `Sec-Fetch-Site: cross-site`) is refused with
 * `MissingCSRF` before any function runs.
 *
 * @throws `InvalidRequest` for a malformed host.
 * @example
 * ```ts
 * const event = getRequestEvent()!
 * const { organizations } = await extensions(event.request, authOptions, { clientAddress: event.clientAddress })
 * ```
 */
export async function extensions<C extends SolidAuthConfig>(request: Request, options: C, client: { clientAddress?: string } = {}): Promise<ExtensionFunctions<C["extensions"]>> {
  const { clientAddress } = client
  const origin = originOfUrl(request.url)
  return (await extensionFunctions({ origin, headers: request.headers, method: request.method, ...(clientAddress && { clientAddress }) }, runtimeOf(options))) as ExtensionFunctions<C["extensions"]>
}

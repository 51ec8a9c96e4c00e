/**
 * Portcullis core: authentication on Web standards.
 *
 * `Auth(request, config)` answers every auth request of your app — sign-in, callbacks,
 * session, sign-out, CSRF, built-in pages — and returns a `Response`. It runs wherever
 * `Request`, `Response` and Web Crypto exist: Node ≥ 22, Bun, Deno, edge runtimes.
 * Configuration is the same as Auth.js v5; migrating is changing import specifiers.
 *
 * @example
 * ```ts
 * import { Auth } from "@portcullis/core"
 * import Credentials from "@portcullis/core/providers/credentials"
 *
 * const config = {
 *   secret: process.env.AUTH_SECRET,
 *   providers: [Credentials({ authorize: async ({ username }) => (username === "ada" ? { id: "1", name: "Ada" } : null) })],
 * }
 *
 * // Any server that speaks fetch-style Request/Response:
 * export default { fetch: (request: Request) => Auth(request, config) }
 * ```
 * @module
 */
import type { ResponseInternal } from "./base-types.js"
import type { AuthConfig } from "./types.js"
import { AuthRuntime, runtimeFor } from "./lib/runtime.js"
import type { AccessToken } from "./lib/tokens/result.js"
import type { AccessTokenParams } from "./lib/tokens/access.js"
import type { raw } from "./symbols.js"

export { customFetch, raw, skipCSRFCheck } from "./symbols.js"
export { createActionURL, setEnvDefaults } from "./lib/config/env.js"
export { isAuthAction } from "./lib/http/request.js"
export { AuthError, CredentialsSignin, ReauthRequired, TokenRefreshFailed } from "./errors.js"
export type { ReauthReason } from "./errors.js"
export type { AccessToken } from "./lib/tokens/result.js"
export type { AccessTokenParams } from "./lib/tokens/access.js"
export type { RefreshLock } from "./lib/tokens/lock.js"
export type { TokenRefreshOptions } from "./lib/tokens/options.js"
export { AuthRuntime, type HandleOptions } from "./lib/runtime.js"
export type * from "./types.js"

/**
 * Handles one auth request: parse → check → act → respond.
 *
 * Bad input never crashes it: an unknown action is a 400, a wrong method a 405, a body
 * over 1 MiB a 413, a broken session cookie an anonymous session. A failing or slow store
 * (`adapterTimeout`) is a `ServiceUnavailable`: `503` from `GET /session`, the error page
 * with `?error=ServiceUnavailable` elsewhere, never `200 null` or `Configuration`. Errors reach the client
 * only as a public code (`?error=CredentialsSignin`); the detail goes to `logger.error`.
 *
 * With `config.raw` set to the exported `raw` symbol it returns the internal response
 * object instead, and rethrows {@link AuthError}s (for server-side helpers of integrations).
 */
export function Auth(request: Request, config: AuthConfig & { raw: typeof raw }): Promise<ResponseInternal>
export function Auth(request: Request, config: Omit<AuthConfig, "raw">): Promise<Response>
export function Auth(request: Request, config: AuthConfig): Promise<Response | ResponseInternal>
export function Auth(request: Request, config: AuthConfig): Promise<Response | ResponseInternal> {
  // Not `async`: that would wrap the runtime's promise in one more (two more microtask
  // turns per request). A synchronous throw still becomes a rejection, as before.
  try {
    return runtimeFor(config).handleAsConfigured(request)
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * Builds the runtime of one configuration: resolved and checked once, owning every cache
 * and store of that configuration. `Auth(request, config)` does this on first use of a
 * config object; call it yourself to hold the runtime, or to serve several configurations
 * (tenants) from one process with nothing shared between them.
 *
 * @example
 * ```ts
 * import { createAuth } from "@portcullis/core"
 *
 * const auth = createAuth({ providers: [GitHub], adapter })
 * export default { fetch: (request: Request) => auth.handle(request) }
 * ```
 */
export function createAuth(config: Omit<AuthConfig, "raw">): AuthRuntime {
  return runtimeFor(config)
}

/**
 * A valid access token of a user's account with an OAuth/OIDC provider, for calling the
 * provider's API. When the stored token expires within `tokenRefresh.skew` seconds (default
 * 60), it is refreshed first with the stored refresh token (RFC 6749 §6, through
 * oauth4webapi), and a rotated refresh token is stored atomically (compare-and-set on the
 * old one).
 *
 * Concurrent calls for one account make one request to the provider: callers in one
 * process share it, and instances share the `tokenRefresh.lock` (the adapter's by default),
 * where a caller that finds the lock held waits and reads what the holder stored.
 *
 * Who: `{ userId }` or `{ session }` (database-backed accounts: the adapter needs
 * `getAccountByUserId` and `updateAccount`, which the Portcullis adapters have), or
 * `{ request }` — the browser's request, for either session strategy; with JWT sessions the
 * tokens ride in the session cookie (`tokenRefresh.jwt: true`) and a rotation re-issues it
 * through `setCookie`. See docs/tokens.md.
 *
 * @throws {@link ReauthRequired} when the user must sign in with the provider again (the
 * provider refused the refresh token — the account is then marked — or there is none, or no
 * such account); {@link TokenRefreshFailed} when the provider could not be asked (down,
 * slow, a server error: nothing is marked, try again later); `AdapterError` when the store
 * failed.
 *
 * @example
 * ```ts
 * import { createAuth, getAccessToken, ReauthRequired } from "@portcullis/core"
 *
 * const auth = createAuth(config)
 * try {
 *   const { accessToken } = await getAccessToken(auth, { userId: user.id, provider: "google" })
 *   await fetch("https://www.googleapis.com/calendar/v3/users/me/calendarList", {
 *     headers: { Authorization: `Bearer ${accessToken}` },
 *   })
 * } catch (error) {
 *   if (error instanceof ReauthRequired) redirectTo("/auth/signin/google")
 *   else throw error
 * }
 * ```
 */
export function getAccessToken(auth: Omit<AuthConfig, "raw"> | AuthRuntime, params: AccessTokenParams): Promise<AccessToken> {
  return runtimeFor(auth as AuthConfig).getAccessToken(params)
}

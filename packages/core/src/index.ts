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
import { AuthError, ServiceUnavailable } from "./errors.js"
import type { AuthConfig, ResponseInternal } from "./types.js"
import { resolveConfig } from "./lib/config/resolve.js"
import { createContext } from "./lib/context.js"
import { dispatch } from "./lib/dispatch.js"
import { actionErrorResponse, asOutage, configErrorResponse, requestErrorResponse, unavailableResponse } from "./lib/errors.js"
import { parseRequest } from "./lib/http/request.js"
import { toResponse } from "./lib/http/response.js"
import type { raw } from "./symbols.js"

export { customFetch, raw, skipCSRFCheck } from "./symbols.js"
export { createActionURL, setEnvDefaults } from "./lib/config/env.js"
export { isAuthAction } from "./lib/http/request.js"
export { AuthError, CredentialsSignin } from "./errors.js"
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
export async function Auth(request: Request, config: AuthConfig & { raw: typeof raw }): Promise<ResponseInternal>
export async function Auth(request: Request, config: Omit<AuthConfig, "raw">): Promise<Response>
export async function Auth(request: Request, config: AuthConfig): Promise<Response | ResponseInternal>
export async function Auth(request: Request, config: AuthConfig): Promise<Response | ResponseInternal> {
  const resolved = resolveConfig(config)
  const { logger } = resolved
  const returnRedirect = request.headers.has("x-auth-return-redirect")
  const finish = (internal: ResponseInternal, cookies = internal.cookies ?? []) =>
    resolved.raw ? { ...internal, cookies } : toResponse(internal, cookies, returnRedirect)

  if (resolved.error) {
    logger.error(resolved.error)
    const action = safeAction(request.url, resolved.basePath)
    return finish(configErrorResponse(resolved, action, request.method.toUpperCase(), safeOrigin(request.url, resolved.siteUrl)))
  }

  let ctx
  try {
    ctx = createContext(await parseRequest(request, resolved), resolved)
  } catch (error) {
    logger.error(error as Error)
    const response = requestErrorResponse(error) ?? configErrorResponse(resolved, undefined, "POST", undefined)
    return finish(response)
  }

  try {
    const internal = await dispatch(ctx)
    return finish(internal, [...ctx.setCookies, ...(internal.cookies ?? [])])
  } catch (thrown) {
    const error = asOutage(thrown)
    logger.error(error as Error)
    if (resolved.raw && error instanceof AuthError && !returnRedirect) throw error
    // A session check during an outage must not read as "signed out" (`200 null`).
    if (error instanceof ServiceUnavailable && ctx.action === "session") return finish(unavailableResponse(error))
    if (ctx.action === "session" && ctx.method === "POST") {
      return finish({ status: 400, headers: { "Content-Type": "application/json" }, body: null })
    }
    const direct = requestErrorResponse(error)
    if (direct) return finish(direct)
    // Cookies gathered before the failure are dropped, except deletions of one-time checks.
    const deletions = ctx.setCookies.filter((c) => c.options.maxAge === 0)
    const response = await actionErrorResponse(ctx, error)
    // fetch-based clients get the error page's URL with a 503, not a `200 {url}` that looks like success.
    if (error instanceof ServiceUnavailable && returnRedirect) return finish(unavailableResponse(error, response.redirect), deletions)
    return finish(response, deletions)
  }
}

function safeAction(url: string, basePath: string): string | undefined {
  try {
    const path = new URL(url).pathname
    return path.startsWith(basePath) ? path.slice(basePath.length).split("/").filter(Boolean)[0] : undefined
  } catch {
    return undefined
  }
}

function safeOrigin(url: string, siteUrl: URL | undefined): string | undefined {
  if (siteUrl) return siteUrl.origin
  try {
    return new URL(url).origin
  } catch {
    return undefined
  }
}

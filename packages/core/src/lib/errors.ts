import {
  AdapterError,
  AuthError,
  CredentialsSignin,
  ErrorPageLoop,
  InvalidRequest,
  isClientError,
  MethodNotAllowed,
  RateLimited,
  RequestTooLarge,
  ServiceUnavailable,
  UnknownAction,
  type ErrorType,
} from "../errors.js"
import type { ResponseInternal } from "../base-types.js"
import { resolveCallbackUrl, type RequestContext } from "./context.js"
import type { ResolvedConfig } from "./config/resolved.js"
import { renderError } from "./pages/index.js"
import { pageHeaders, privateJsonHeaders } from "./http/response.js"

/** Seconds clients are told to wait (`Retry-After`) after a {@link ServiceUnavailable}. */
export const RETRY_AFTER_SECONDS = new ServiceUnavailable().retryAfter

/**
 * An adapter failure that ends a request is, for the client, the service being unavailable:
 * neither a sign-out nor a configuration problem. The adapter's error stays as the cause.
 */
export function asOutage(error: unknown): unknown {
  if (error instanceof AdapterError) return new ServiceUnavailable(`The store failed (${error.name}); the request was not completed`, error)
  return error
}

/**
 * The JSON answer to an outage: `503`, `Retry-After`, `{"error":"ServiceUnavailable"}`, and
 * the error page's `url` for `X-Auth-Return-Redirect` clients, which navigate there.
 */
export function unavailableResponse(error: ServiceUnavailable, url?: string): ResponseInternal {
  return {
    status: 503,
    headers: { ...privateJsonHeaders, "Retry-After": String(error.retryAfter) },
    body: { error: "ServiceUnavailable", message: "The service is temporarily unavailable. Please try again shortly.", ...(url && { url }) },
  }
}

/**
 * The JSON answer to a rate limit: `429`, `Retry-After`, `{"error":"RateLimited"}`, and the
 * sign-in page's `url` for `X-Auth-Return-Redirect` clients. The same for every identifier.
 */
export function rateLimitedResponse(error: RateLimited, url?: string): ResponseInternal {
  return {
    status: 429,
    headers: { ...privateJsonHeaders, "Retry-After": String(error.retryAfter) },
    body: { error: "RateLimited", message: "Too many attempts. Please wait before trying again.", ...(url && { url }) },
  }
}

/**
 * Whether the client reads JSON rather than following redirects: `fetch` clients
 * (`X-Auth-Return-Redirect`, a JSON body or `Accept: application/json` without HTML), and
 * the endpoints only scripts call (session update, passkey options).
 */
export function wantsJson(ctx: RequestContext, returnRedirect: boolean): boolean {
  if (returnRedirect || ctx.action === "session" || ctx.action === "webauthn-options") return true
  const accept = ctx.headers.get("accept") ?? ""
  if (accept.includes("application/json") && !accept.includes("text/html")) return true
  return (ctx.headers.get("content-type") ?? "").toLowerCase().startsWith("application/json")
}

/** `?error=` values for error types whose public name differs (spec §7.3). */
const publicCode: Partial<Record<ErrorType, string>> = {
  EmailSignInError: "EmailSignin",
  OAuthSignInError: "OAuthSignin",
}

/** The `?error=` code for an error: its type when client-safe, else `Configuration`. */
export function errorCode(error: unknown): string {
  if (!isClientError(error)) return "Configuration"
  return publicCode[error.type] ?? error.type
}

/** Status and JSON body for requests that never reached an action. */
export function requestErrorResponse(error: unknown): ResponseInternal | undefined {
  const json = (status: number, e: AuthError): ResponseInternal => ({
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...(e instanceof MethodNotAllowed && { Allow: (e as MethodNotAllowed & { allow?: string }).allow ?? "GET, POST" }) },
    body: { error: e.type, message: e.message },
  })
  if (error instanceof MethodNotAllowed) return json(405, error)
  if (error instanceof RequestTooLarge) return json(413, error)
  if (error instanceof UnknownAction || error instanceof InvalidRequest) return json(400, error)
  return undefined
}

/**
 * A configuration problem, as Auth.js answers it: a `GET` of a page (`signin`, `signout`,
 * `error`, `verify-request`, and Portcullis's `two-factor`) gets the error page — a 302 to `pages.error?error=Configuration`
 * when the app has one, else the built-in page (500) — and everything else a JSON 500.
 * A `callbackUrl` that points back at `pages.error` means that page itself requires
 * sign-in: redirecting there would loop, so the built-in page answers and `ErrorPageLoop`
 * is logged. So does a request for `pages.error` itself (an error page set to one of the
 * actions, `/auth/error` or `/auth/signin`): it would answer the same redirect forever,
 * where Auth.js loops until the browser gives up.
 */
export function configErrorResponse(
  config: ResolvedConfig,
  request: { action: string | undefined; method: string; origin: string | undefined; callbackUrl?: string | null; pathname?: string },
): ResponseInternal {
  const { action, method, origin } = request
  const isPage = method === "GET" && (action === "signin" || action === "signout" || action === "error" || action === "verify-request" || action === "two-factor" || action === "reauthenticate")
  if (isPage) {
    const errorPage = config.pages.error
    const loops = !!errorPage && (!!request.callbackUrl?.startsWith(errorPage) || isErrorPageItself(errorPage, origin, request.pathname))
    if (loops) config.logger.error(new ErrorPageLoop(`The error page ${errorPage} should not require authentication`))
    if (errorPage && origin && !loops) {
      const url = new URL(errorPage, origin)
      url.searchParams.set("error", "Configuration")
      return { redirect: url.href }
    }
    const { html } = renderError({ theme: config.theme, basePath: config.basePath, origin: origin ?? "", csrfToken: "", error: "Configuration" })
    return { status: 500, headers: pageHeaders, body: html }
  }
  return {
    status: 500,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
    body: { message: "There was a problem with the server configuration. Check the server logs for more information." },
  }
}

/** Whether the request being answered is for `errorPage` (redirecting would loop). */
function isErrorPageItself(errorPage: string, origin: string | undefined, pathname: string | undefined): boolean {
  if (pathname === undefined) return false
  try {
    const page = new URL(errorPage, origin ?? "http://localhost")
    return (origin === undefined || page.origin === origin) && page.pathname.replace(/\/+$/, "") === pathname.replace(/\/+$/, "")
  } catch {
    return false
  }
}

/**
 * An error thrown by an action: `signIn`-kind errors go back to the sign-in page, others to
 * the error page, with only the public code in the URL. The detail is in the server log.
 */
export async function actionErrorResponse(ctx: RequestContext, error: unknown): Promise<ResponseInternal> {
  const code = errorCode(error)
  const kind = error instanceof AuthError ? error.kind : "error"
  const params = new URLSearchParams({ error: code })
  if (error instanceof CredentialsSignin) params.set("code", error.code)
  if (kind === "signIn") {
    // Keep where the user was going, so a second attempt still lands there.
    const callbackUrl = await resolveCallbackUrl(ctx).catch(() => ctx.origin)
    if (callbackUrl !== ctx.origin) params.set("callbackUrl", callbackUrl)
  }
  const { pages, basePath } = ctx.config
  const target = kind === "signIn" ? (pages.signIn ?? `${basePath}/signin`) : (pages.error ?? `${basePath}/error`)
  const url = new URL(target, ctx.origin)
  params.forEach((v, k) => url.searchParams.set(k, v))
  return { redirect: url.href }
}

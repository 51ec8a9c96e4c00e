/**
 * Building blocks for framework integrations (SvelteKit, Qwik City, your own): the
 * server-side sign-in, sign-out and session reads that every integration needs, done once
 * on top of the configuration's runtime (`AuthRuntime`). Apps do not need this module;
 * integration authors do.
 *
 * @example
 * ```ts
 * import { createAuth } from "@portcullis/core"
 * import { originOfUrl, readSession, underBasePath } from "@portcullis/core/integration"
 *
 * // One runtime per app configuration: the HTTP endpoints, session reads and form actions
 * // all go through it (every function here also takes the config object itself).
 * const auth = createAuth(config)
 * if (underBasePath(url.pathname, auth.basePath)) return auth.handle(request)
 * // originOfUrl checks the host and scheme first (InvalidRequest, a 400, when malformed)
 * const current = await readSession(originOfUrl(url), request.headers.get("cookie"), auth, (c) => cookies.set(c.name, c.value, c.options))
 * ```
 * @module
 */
import { AuditTrailUnsupported, InvalidRequest, MethodNotAllowed, ServiceUnavailable } from "./errors.js"
import type { AccessToken, AuthConfig, Cookie, ResponseInternal, Session, SessionInfo } from "./index.js"
import type { SessionOperation, SessionOperationResult } from "./lib/session/manage.js"
import { requestErrorResponse } from "./lib/errors.js"
import { originFromHeaders } from "./lib/http/host.js"
import { privateJsonHeaders, toResponse } from "./lib/http/response.js"
import type { NodeIncoming, NodeOutgoing } from "./lib/http/node.js"
import { serializeCookie } from "./lib/cookies.js"
import { runtimeFor, type AuthRuntime, type FullSessionCheck } from "./lib/runtime.js"
import { configProblem, type ResolvedConfig } from "./lib/config/resolve.js"
import type { TwoFactorStatus } from "./lib/two-factor/enrollment.js"
import type { TwoFactorResetInput, TwoFactorResetResult } from "./lib/two-factor/recovery.js"
import type { TotpEnrollment } from "./two-factor.js"
import type { StepUpStatus } from "./lib/step-up/gate.js"
import type { HealthReport, HealthStatus, StoreCheck } from "./lib/health/shared.js"
import type { AuditPage, AuditQuery } from "./lib/audit/query.js"
import type { AuditStoreMethods } from "./lib/config/stores.js"
import type { ExtensionFunctions } from "./lib/extensions/api.js"

export { checkHost, checkProto, originFromHeaders, type OriginHeaders, type Proto } from "./lib/http/host.js"
/**
 * The runtime of a configuration (built on first use, then the same one for that config
 * object) or the runtime itself. Integrations route with its `basePath` (core's resolution
 * of the option: `basePath`, else `AUTH_URL`'s path, else `/auth`) and answer endpoint
 * requests with its `handle(request)`.
 */
export { runtimeFor } from "./lib/runtime.js"
export type { AuthRuntime, FullSessionCheck, HandleOptions } from "./lib/runtime.js"
export type { NodeAnswer, NodeBody, NodeIncoming, NodeOutgoing, NodeRequest } from "./lib/http/node.js"

/**
 * Answers a request of a plain node:http server (or any server with Node's request and
 * response) with core's `handleNode`: no Web `Request` or `Response` is built. The origin is
 * the `Host` the server saw (`https` on a TLS socket) — or, with `trustHost`, what a proxy
 * forwarded — checked as `Auth()` checks it; the client's address is the socket's peer
 * unless `clientAddress` says otherwise (your proxy's rules). A malformed `Host` is core's 400.
 *
 * @example
 * ```ts
 * import { createServer } from "http" // node:http
 * import { createAuth } from "@portcullis/core"
 * import { handleNodeRequest } from "@portcullis/core/integration"
 *
 * const auth = createAuth(config)
 * createServer((req, res) => {
 *   if (req.url?.startsWith(`${auth.basePath}/`)) handleNodeRequest(req, res, auth).catch((error) => res.destroy(error))
 *   else app(req, res)
 * }).listen(3000)
 * ```
 */
export function handleNodeRequest(req: NodeIncoming, res: NodeOutgoing, auth: AuthSource, options: { clientAddress?: string } = {}): Promise<void> {
  return runtimeFor(auth).serveNode(req, res, options)
}

/**
 * The origin of a URL the framework already built (`event.url`, `request.url`), checked as
 * {@link originFromHeaders} checks headers: a framework that parsed a hostile `Host` into its URL
 * may still hand over a `javascript:` scheme or a host that is no host.
 *
 * @throws InvalidRequest
 */
export function originOfUrl(url: URL | string): string {
  let parsed: URL
  try {
    parsed = typeof url === "string" ? new URL(url) : url
  } catch {
    throw new InvalidRequest("The request URL is not valid")
  }
  if (parsed.username || parsed.password) throw new InvalidRequest("The request URL carries userinfo")
  return originFromHeaders({ host: parsed.host, protocol: parsed.protocol, trustForwarded: false })
}

/**
 * Exactly what `Auth()` answers when it refuses a request as malformed: a 400 with
 * `{"error":"InvalidRequest","message":…}` and `Cache-Control: no-store`, for page and API
 * requests alike. For integrations that check a request before it reaches core.
 */
export function invalidRequestResponse(error: InvalidRequest): Response {
  return toResponse(requestErrorResponse(error)!, [], false)
}

/**
 * What `Auth()` answers for a method no action takes: a 405 with `Allow: GET, POST` and
 * `{"error":"MethodNotAllowed","message":…}`. For integrations that build the Web
 * `Request` themselves from a method the Fetch API cannot carry (`TRACE`, `TRACK`,
 * `CONNECT`: `new Request()` throws a `TypeError` for them).
 *
 * @example
 * ```ts
 * if (!fetchMethod(req.method)) return send(res, methodNotAllowedResponse(req.method))
 * ```
 */
export function methodNotAllowedResponse(method: string): Response {
  const error = Object.assign(new MethodNotAllowed(`${method} is not allowed here; use GET, POST`), { allow: "GET, POST" })
  return toResponse(requestErrorResponse(error)!, [], false)
}

/**
 * Whether a Web `Request` can carry `method`: false for the Fetch standard's forbidden
 * methods `TRACE`, `TRACK` and `CONNECT`, in any case.
 */
export function fetchMethod(method: string): boolean {
  return !/^(?:connect|trace|track)$/i.test(method)
}

/** A cookie core asked to set, as a `Set-Cookie` header value (for frameworks that take raw headers, such as Express's `res.append`). */
export function setCookieHeader(cookie: Cookie): string {
  return serializeCookie(cookie.name, cookie.value, cookie.options)
}

/** Whether `pathname` is `<basePath>` or below it. */
export function underBasePath(pathname: string, basePath: string): boolean {
  return pathname === basePath || pathname.startsWith(`${basePath}/`)
}

/**
 * What the functions below run on: an app configuration, or its runtime (`createAuth`).
 * A configuration object is mapped to its runtime by core ({@link runtimeFor}), so passing
 * the same object the HTTP handler gets means one runtime — one resolution, one set of
 * caches — for the endpoints, session reads and form actions alike.
 */
export type AuthSource = AuthConfig | AuthRuntime

/** Where cookies from an internal response go: SvelteKit's `event.cookies`, Qwik's `cookie`. */
export type CookieSink = (cookie: Cookie) => void

/**
 * The session for a request's cookies, or `null` when signed out. Only the `Cookie` header
 * is forwarded: nothing else about the request can change what the session is. Cookies the
 * check sets (a re-issued token, a cleared stale one) go to `setCookie`; without one they
 * are dropped and the browser's next `<basePath>/session` request sets them.
 *
 * @throws {@link ServiceUnavailable} when the store could not be read (an outage is not a
 * sign-out: the app decides whether to show a retry page or degrade), {@link InvalidRequest}
 * when core refused the request (its origin is not the site's), `AuthError`/`Error` for
 * configuration problems. `origin` must be one {@link originFromHeaders} or
 * {@link originOfUrl} returned.
 */
export async function readSession(origin: string, cookieHeader: string | null | undefined, auth: AuthSource, setCookie?: CookieSink): Promise<Session | null> {
  // The session lane answers most reads without a Web `Request` (an answer with no cookie
  // to set); the rest take the full check, which continues from what the lane began.
  const checked = runtimeFor(auth).sessionCheck(origin, cookieHeader)
  const answer = typeof checked === "string" ? checked : await checked
  if (typeof answer === "string") return JSON.parse(answer) as Session | null
  const internal = answer
  deliver(internal, setCookie)
  const status = internal.status ?? 200
  const body = internal.body as (Session & { message?: string }) | null | undefined
  // A refused request (a Host that is not one of the site's origins) is the client's fault:
  // the caller's `instanceof InvalidRequest` answers it with a 400, not a 500.
  if (status === 400) throw new InvalidRequest(body?.message ?? "The request was refused")
  if (status !== 200) throw new Error(body?.message ?? `Session request failed with ${status}`)
  return body && Object.keys(body).length ? body : null
}

/**
 * The headers of a session check's answer (`GET <basePath>/session`), for an integration
 * that writes a {@link sessionCheckAnswer} string itself.
 */
export const sessionAnswerHeaders: Readonly<Record<string, string>> = Object.freeze({ ...privateJsonHeaders })

/**
 * The answer to `GET <basePath>/session` for an integration's handler on Node, without a
 * Web `Request` or `Response` when core's session lane can answer (a remembered or valid
 * token, a live database row, no cookie to set): the JSON body to send with
 * {@link sessionAnswerHeaders} and status 200. Otherwise the `Response` of the full check,
 * which is given the whole request (`full.request`, built only then) and continues from
 * what the lane began, so a token is decrypted, and the store asked, once.
 *
 * `origin` must be one {@link originFromHeaders} returned for this request, and
 * `full.request()` a request on that origin without forwarded headers.
 *
 * @example
 * ```ts
 * const answer = await sessionCheckAnswer(origin, req.headers.cookie, config, { request: () => toWebRequest(req), clientAddress: req.socket.remoteAddress })
 * if (typeof answer === "string") res.writeHead(200, sessionAnswerHeaders).end(answer)
 * else await sendWebResponse(res, answer)
 * ```
 */
export function sessionCheckAnswer(origin: string, cookieHeader: string | null | undefined, auth: AuthSource, full?: FullSessionCheck): string | Promise<string | Response> {
  return runtimeFor(auth).sessionCheck(origin, cookieHeader, "response", full)
}

/**
 * A valid provider access token for the user a request's cookies sign in, refreshed when
 * it expires within `tokenRefresh.skew` — the integrations' `getAccessToken`, on top of
 * core's (`getAccessToken(auth, { request, provider })`). Only the `Cookie` header is
 * forwarded. With JWT sessions (`tokenRefresh.jwt`) a rotation re-issues the session
 * cookie, which goes to `setCookie`; without one, the next session check re-issues it
 * (the rotation is remembered meanwhile, so the old refresh token is not sent again).
 *
 * @throws `ReauthRequired`, `TokenRefreshFailed` (see `getAccessToken` in `@portcullis/core`).
 * `origin` must be one {@link originFromHeaders} or {@link originOfUrl} returned.
 *
 * @example
 * ```ts
 * const { accessToken } = await readAccessToken(originOfUrl(url), request.headers.get("cookie"), auth, "google", (c) => cookies.set(c.name, c.value, c.options))
 * ```
 */
export function readAccessToken(origin: string, cookieHeader: string | null | undefined, auth: AuthSource, provider: string, setCookie?: CookieSink): Promise<AccessToken> {
  const runtime = runtimeFor(auth)
  const request = new Request(`${origin}${runtime.basePath}/session`, { headers: cookieHeaders(cookieHeader) })
  return runtime.getAccessToken({ request, provider, ...(setCookie && { setCookie }) })
}

/**
 * Turns the `Response` of `GET <basePath>/session` into what server-side readers return:
 * the session, `null` when signed out, a thrown {@link ServiceUnavailable} on `503` (the
 * store is down), a thrown `Error` with core's message on any other failure. For code that
 * has only the HTTP answer (a session fetched over the network); in-process readers use
 * {@link readSession}.
 *
 * @example
 * ```ts
 * const session = await sessionFromResponse(await fetch(`${origin}/auth/session`, { headers }))
 * ```
 */
export async function sessionFromResponse(response: Response): Promise<Session | null> {
  const data = (await response.json().catch(() => null)) as (Session & { error?: string; message?: string }) | null
  if (response.status === 503 && data?.error === "ServiceUnavailable") throw new ServiceUnavailable(data.message ?? "The session store is unavailable")
  if (response.status !== 200) throw new Error(data?.message ?? `Session request failed with ${response.status}`)
  return data && Object.keys(data).length ? data : null
}

/** Per-call options of the server-side actions. */
export interface ServerActionOptions {
  /**
   * Skip core's double-submit CSRF check for this call: for framework form actions whose
   * framework (and the integration) already refused cross-site posts by their origin, and
   * whose form carried no token. The configuration's own `skipCSRFCheck` applies otherwise.
   */
  skipCSRF?: boolean
}

export interface ServerSignInInput extends ServerActionOptions {
  origin: string
  /** Headers of the browser's request (cookies, user agent, language). */
  headers: Headers
  provider: string | undefined
  /** Fields posted to core: credentials and anything else the form carried. */
  fields: Record<string, string>
  redirectTo: string | undefined
  authorizationParams: Record<string, string>
}

export interface ServerSignOutInput extends ServerActionOptions {
  origin: string
  /** Headers of the browser's request (cookies, user agent, language). */
  headers: Headers
  redirectTo: string | undefined
  /** From a form that carried one: core checks it against the browser's CSRF cookie. */
  csrfToken?: string
}

/**
 * Runs a sign-in on the server, as Auth.js's server `signIn` does, and returns where the
 * browser goes next. Failures come back as a redirect too (the sign-in page with
 * `?error=`), because the `X-Auth-Return-Redirect` header asks core for one instead of a throw.
 */
export async function serverSignIn(input: ServerSignInInput, auth: AuthSource, setCookie: CookieSink): Promise<string> {
  const runtime = runtimeFor(auth)
  const { basePath } = runtime
  const callbackUrl = input.redirectTo || input.headers.get("referer") || "/"
  const provider = input.provider ? runtime.config.providerById.get(input.provider) : undefined
  if (!provider) {
    // No provider, or one the config doesn't know: the sign-in page lists what there is.
    const url = new URL(`${basePath}/signin`, input.origin)
    url.searchParams.set("callbackUrl", callbackUrl)
    return url.href
  }
  const id = encodeURIComponent(provider.id)
  const path = provider.type === "credentials" || provider.type === "password" ? `${basePath}/callback/${id}` : `${basePath}/signin/${id}`
  const url = new URL(path, input.origin)
  for (const [k, v] of Object.entries(input.authorizationParams)) url.searchParams.set(k, v)
  const body = new URLSearchParams({ ...input.fields, callbackUrl })
  return post(runtime, url, input, body, setCookie)
}

/**
 * Runs a sign-out on the server and returns where the browser goes next. With `csrfToken`
 * (from a form that carried one), core checks it against the browser's CSRF cookie.
 */
export async function serverSignOut(input: ServerSignOutInput, auth: AuthSource, setCookie: CookieSink): Promise<string> {
  const runtime = runtimeFor(auth)
  const callbackUrl = input.redirectTo || input.headers.get("referer") || "/"
  const url = new URL(`${runtime.basePath}/signout`, input.origin)
  const body = new URLSearchParams({ callbackUrl })
  if (input.csrfToken) body.set("csrfToken", input.csrfToken)
  return post(runtime, url, input, body, setCookie)
}

/**
 * The browser's CSRF token (minting one and its cookie when it has none), for server-rendered
 * forms that post to framework form actions: put it in a hidden `csrfToken` field and the
 * action can have core verify it (double submit), on top of the framework's origin check.
 *
 * @throws Error when the configuration turned CSRF protection off (`skipCSRFCheck`).
 */
export async function readCsrfToken(origin: string, cookieHeader: string | null | undefined, auth: AuthSource, setCookie: CookieSink): Promise<string> {
  const runtime = runtimeFor(auth)
  const internal = await runtime.handleInternal(new Request(`${origin}${runtime.basePath}/csrf`, { headers: cookieHeaders(cookieHeader) }))
  deliver(internal, setCookie)
  const token = (internal.body as { csrfToken?: unknown } | undefined)?.csrfToken
  if (typeof token !== "string") throw new Error("CSRF protection is off for this configuration (skipCSRFCheck)")
  return token
}

async function post(runtime: AuthRuntime, url: URL, input: { headers: Headers; skipCSRF?: boolean }, body: URLSearchParams, setCookie: CookieSink): Promise<string> {
  const headers = new Headers()
  for (const name of ["cookie", "user-agent", "accept-language", "referer"]) {
    const value = input.headers.get(name)
    if (value) headers.set(name, value)
  }
  headers.set("content-type", "application/x-www-form-urlencoded")
  headers.set("x-auth-return-redirect", "1")
  // Only a `true` overrides: otherwise the configuration's own `skipCSRFCheck` decides.
  const internal = await runtime.handleInternal(new Request(url, { method: "POST", headers, body }), input.skipCSRF ? { skipCSRF: true } : {})
  deliver(internal, setCookie)
  const target = internal.redirect ?? (internal.body as { url?: string } | undefined)?.url
  if (typeof target !== "string") throw new Error(`Auth answered ${internal.status ?? 200} without a redirect`)
  return target
}

/**
 * The browser's request, for the session-management functions below: its origin (from
 * {@link originFromHeaders} or {@link originOfUrl}) and its headers (the cookies say whose
 * sessions; `Origin`/`Sec-Fetch-Site` are checked on changes).
 */
export interface SessionRequest extends ServerActionOptions {
  origin: string
  headers: Headers
  /**
   * The `csrfToken` a form posted (from {@link readCsrfToken}): changes are checked by core's
   * double-submit check unless `skipCSRF` (for a framework action that refused cross-site
   * posts itself) or the configuration's `skipCSRFCheck`.
   */
  csrfToken?: string
  /**
   * The client's address, as the framework knows it (Express's `req.ip`, SvelteKit's
   * `getClientAddress()`): the two-factor functions count guesses per address with it, as
   * `handle(request, { clientAddress })` does. Without it, a trusted `X-Forwarded-For` is read.
   */
  clientAddress?: string
}

/**
 * The signed-in user's sessions (database or JWT), the request's own first and marked
 * `current`. See `docs/sessions.md`.
 *
 * @throws NotSignedIn when the request has no valid session; SessionManagementUnsupported
 * when the adapter has no `listSessions` (database) or there is no `session.registry`
 * (JWT); ServiceUnavailable when the store failed.
 * @example
 * ```ts
 * const sessions = await listSessions({ origin, headers: request.headers }, auth)
 * for (const s of sessions) console.log(s.current ? "this device" : s.userAgent, s.lastSeenAt)
 * ```
 */
export async function listSessions(request: Pick<SessionRequest, "origin" | "headers">, auth: AuthSource): Promise<SessionInfo[]> {
  const result = await manage(request, auth, { op: "list" })
  return result.sessions ?? []
}

/**
 * Revokes one of the signed-in user's sessions by its listed `id`; `false` when no session
 * of theirs has that id (someone else's id is never found). Revoking the current session
 * clears its cookie through `setCookie`. A revoked JWT session is refused everywhere within
 * `session.revocationCheckInterval`; a database session at once.
 */
export async function revokeSession(request: SessionRequest & { id: string }, auth: AuthSource, setCookie?: CookieSink): Promise<boolean> {
  const result = await manage(request, auth, { op: "revoke", id: request.id }, setCookie)
  return result.revoked > 0
}

/** Revokes every session of the signed-in user but the current one; returns how many. */
export async function revokeOtherSessions(request: SessionRequest, auth: AuthSource): Promise<number> {
  return (await manage(request, auth, { op: "revokeOthers" })).revoked
}

/** Revokes every session of the signed-in user, the current one too (its cookie is cleared through `setCookie`); returns how many. */
export async function signOutEverywhere(request: SessionRequest, auth: AuthSource, setCookie?: CookieSink): Promise<number> {
  return (await manage(request, auth, { op: "signOutEverywhere" }, setCookie)).revoked
}

/**
 * The session-management, step-up and two-factor calls bound to one request, for
 * integrations that hand the app an object per request (SvelteKit's `event.locals.sessions`,
 * Qwik, SolidStart, Next). A change given a `csrfToken` has it checked by core (double
 * submit); one without relies on the origin checks (the request's `Origin`/`Sec-Fetch-Site`,
 * and the framework's own), as the integrations' sign-in and sign-out form actions do.
 * `revokeOthers`, `signOutEverywhere` and the two-factor changes need a step-up
 * (`StepUpRequired` otherwise: docs/step-up.md).
 */
export interface SessionManager {
  list(): Promise<SessionInfo[]>
  revoke(id: string, csrfToken?: string): Promise<boolean>
  revokeOthers(csrfToken?: string): Promise<number>
  signOutEverywhere(csrfToken?: string): Promise<number>
  /** Whether this session stepped up recently, and until when. */
  stepUpStatus(): Promise<StepUpStatus>
  /** The user, when this session stepped up recently: the gate for the app's own sensitive actions ({@link requireStepUp}). */
  requireStepUp(): Promise<{ userId: string }>
  /** The re-authentication page, coming back to `callbackUrl`. */
  reauthenticateUrl(callbackUrl: string): string
  /** Two-factor enrollment of the signed-in user (docs/two-factor.md). */
  twoFactor: {
    status(): Promise<TwoFactorStatus>
    start(csrfToken?: string, account?: string): Promise<TotpEnrollment>
    confirm(code: string, csrfToken?: string): Promise<{ backupCodes: string[] }>
    disable(code: string, csrfToken?: string): Promise<void>
    regenerateBackupCodes(code: string, csrfToken?: string): Promise<{ backupCodes: string[] }>
  }
}

/** {@link SessionManager} for the request with `origin` and `headers`. */
export function sessionManager(origin: string, headers: Headers, auth: AuthSource, setCookie?: CookieSink): SessionManager {
  const base = (csrfToken: string | undefined): SessionRequest => (csrfToken ? { origin, headers, csrfToken } : { origin, headers, skipCSRF: true })
  return {
    list: () => listSessions({ origin, headers }, auth),
    revoke: (id, csrfToken) => revokeSession({ ...base(csrfToken), id }, auth, setCookie),
    revokeOthers: (csrfToken) => revokeOtherSessions(base(csrfToken), auth),
    signOutEverywhere: (csrfToken) => signOutEverywhere(base(csrfToken), auth, setCookie),
    stepUpStatus: () => stepUpStatus({ origin, headers }, auth),
    requireStepUp: () => requireStepUp({ origin, headers }, auth),
    reauthenticateUrl: (callbackUrl) => reauthenticateUrl(origin, auth, callbackUrl),
    twoFactor: {
      status: () => getTwoFactorStatus({ origin, headers }, auth),
      start: (csrfToken, account) => startTwoFactor({ ...base(csrfToken), ...(account !== undefined && { account }) }, auth),
      confirm: (code, csrfToken) => confirmTwoFactor({ ...base(csrfToken), code }, auth),
      disable: (code, csrfToken) => disableTwoFactor({ ...base(csrfToken), code }, auth),
      regenerateBackupCodes: (code, csrfToken) => regenerateTwoFactorBackupCodes({ ...base(csrfToken), code }, auth),
    },
  }
}

async function manage(request: Pick<SessionRequest, "origin" | "headers" | "csrfToken" | "skipCSRF">, auth: AuthSource, operation: SessionOperation, setCookie?: CookieSink): Promise<SessionOperationResult> {
  const runtime = runtimeFor(auth)
  const result = await runtime.manageSessions(internalRequest(runtime, request, operation.op !== "list"), operation, request.skipCSRF ? { skipCSRF: true } : {})
  deliver(result, setCookie)
  return result
}

function cookieHeaders(cookieHeader: string | null | undefined): Headers {
  const headers = new Headers()
  if (cookieHeader) headers.set("cookie", cookieHeader)
  return headers
}

function deliver(internal: Pick<ResponseInternal, "cookies">, setCookie: CookieSink | undefined): void {
  if (setCookie) for (const cookie of internal.cookies ?? []) setCookie(cookie)
}

/*
 * Step-up re-authentication (docs/step-up.md) and two-factor enrollment (docs/two-factor.md).
 * Every function takes the browser's request: the user is the one its session signs in —
 * never an id the app passes — and the sensitive ones need that session to have proven a
 * first factor within `stepUp.maxAge` (else `StepUpRequired`: send the browser to
 * `<basePath>/reauthenticate?callbackUrl=<this page>`).
 */

/**
 * Gate for an app's own sensitive actions (delete the account, change the email, unlink a
 * provider, …): resolves to the signed-in user when the request's session proved a first
 * factor within `stepUp.maxAge`. Checks nothing about the form: the app's route does its own
 * CSRF protection, as for any change.
 *
 * @throws `NotSignedIn` without a valid session; `StepUpRequired` without a fresh step-up
 * (redirect to {@link reauthenticateUrl}); `ServiceUnavailable` when the step-up store
 * failed (refused, never allowed).
 * @example
 * ```ts
 * try {
 *   const { userId } = await requireStepUp({ origin, headers: request.headers }, auth)
 *   await deleteAccount(userId)
 * } catch (error) {
 *   if (error instanceof StepUpRequired) return redirect(reauthenticateUrl(origin, auth, "/settings"))
 *   throw error
 * }
 * ```
 */
export async function requireStepUp(request: Pick<SessionRequest, "origin" | "headers">, auth: AuthSource): Promise<{ userId: string }> {
  const runtime = runtimeFor(auth)
  const { userId } = await runtime.sessionUser(internalRequest(runtime, request, false), { change: false, stepUp: true })
  return { userId }
}

/** Whether the request's session is signed in and stepped up, and until when: for a settings page ("confirm your password to continue"). */
export async function stepUpStatus(request: Pick<SessionRequest, "origin" | "headers">, auth: AuthSource): Promise<StepUpStatus> {
  const runtime = runtimeFor(auth)
  return runtime.stepUpStatus(internalRequest(runtime, request, false))
}

/** The built-in re-authentication page, coming back to `callbackUrl` (a path or a URL of the site). */
export function reauthenticateUrl(origin: string, auth: AuthSource, callbackUrl: string): string {
  const url = new URL(`${runtimeFor(auth).basePath}/reauthenticate`, origin)
  url.searchParams.set("callbackUrl", callbackUrl)
  return url.href
}

/** A two-factor change: the browser's request, and the posted `csrfToken` (or `skipCSRF`) as for session management. */
export type TwoFactorRequest = SessionRequest

/**
 * Starts two-factor enrollment for the signed-in user: a new TOTP secret, kept pending
 * (sealed) until {@link confirmTwoFactor}; show `qrSvg` (and `uri` for "can't scan?").
 * `account` (what the authenticator app shows) defaults to the user's email.
 *
 * @throws `StepUpRequired`, `NotSignedIn`, `MissingCSRF`; `TwoFactorStateError` when 2FA is
 * already on; `ServiceUnavailable` when a store fails.
 * @example
 * ```ts
 * const { qrSvg } = await startTwoFactor({ origin, headers: request.headers, csrfToken: form.get("csrfToken") }, auth)
 * ```
 */
export async function startTwoFactor(request: TwoFactorRequest & { account?: string }, auth: AuthSource): Promise<TotpEnrollment> {
  const { config, userId, email } = await sensitive(request, auth)
  const account = request.account ?? email ?? userId
  return (await enrollment()).startEnrollment(config, { userId, account })
}

/**
 * Confirms the pending enrollment with the code the authenticator app shows: 2FA is on and
 * the ten backup codes are returned — the only time they exist in plain text.
 *
 * @throws `StepUpRequired`; `TwoFactorCodeInvalid` for a wrong code; `TwoFactorStateError` when nothing is pending.
 */
export async function confirmTwoFactor(request: TwoFactorRequest & { code: string }, auth: AuthSource): Promise<{ backupCodes: string[] }> {
  const { config, userId, address } = await sensitive(request, auth)
  return (await enrollment()).confirmEnrollment(config, { userId, code: request.code, ...(address && { address }) })
}

/** Turns 2FA off for the signed-in user; needs a step-up and a current code (TOTP or backup), which is used up. */
export async function disableTwoFactor(request: TwoFactorRequest & { code: string }, auth: AuthSource): Promise<void> {
  const { config, userId, address } = await sensitive(request, auth)
  return (await enrollment()).disable(config, { userId, code: request.code, ...(address && { address }) })
}

/** Replaces the backup codes with ten new ones; needs a step-up and a current code, which is used up. */
export async function regenerateTwoFactorBackupCodes(request: TwoFactorRequest & { code: string }, auth: AuthSource): Promise<{ backupCodes: string[] }> {
  const { config, userId, address } = await sensitive(request, auth)
  return (await enrollment()).regenerateBackupCodes(config, { userId, code: request.code, ...(address && { address }) })
}

/** Whether the signed-in user has 2FA on (or pending), and how many backup codes are left. Needs no step-up (it changes nothing). */
export async function getTwoFactorStatus(request: Pick<SessionRequest, "origin" | "headers">, auth: AuthSource): Promise<TwoFactorStatus> {
  const runtime = runtimeFor(auth)
  const { userId } = await runtime.sessionUser(internalRequest(runtime, request, false), { change: false, stepUp: false })
  const config = await configFor(auth)
  return (await enrollment()).twoFactorStatus(config, userId)
}

/** The checked configuration and the user of a stepped-up session, for a change (origin and CSRF checked). */
async function sensitive(request: TwoFactorRequest, auth: AuthSource): Promise<{ config: ResolvedConfig; userId: string; email?: string; address?: string }> {
  const runtime = runtimeFor(auth)
  const config = await configFor(auth)
  const options = { ...(request.skipCSRF && { skipCSRF: true }), ...(request.clientAddress && { clientAddress: request.clientAddress }) }
  const user = await runtime.sessionUser(internalRequest(runtime, request, true), { change: true, stepUp: true }, options)
  return { config, ...user }
}

/** What core reads of the browser's request (cookies, origin checks, the posted token), as a request to the session endpoint. */
function internalRequest(runtime: AuthRuntime, request: Pick<SessionRequest, "origin" | "headers" | "csrfToken">, change: boolean): Request {
  const headers = new Headers()
  for (const name of ["cookie", "user-agent", "origin", "sec-fetch-site", "x-forwarded-for"]) {
    const value = request.headers.get(name)
    if (value) headers.set(name, value)
  }
  const url = `${request.origin}${runtime.basePath}/session`
  if (!change) return new Request(url, { headers })
  headers.set("content-type", "application/x-www-form-urlencoded")
  return new Request(url, { method: "POST", headers, body: new URLSearchParams(request.csrfToken ? { csrfToken: request.csrfToken } : {}) })
}

/**
 * Account recovery for a user who lost their authenticator and their backup codes
 * (docs/two-factor.md, "Lost your authenticator"): removes the user's two-factor record,
 * ends every session of the user, fires the `twoFactorReset` event with `reason` and
 * `actor` (the audit record) and mails the user a notice. For support staff or an admin
 * page: the app checks who may call it, and how the user proved who they are — this
 * function trusts `userId`.
 *
 * @throws `TwoFactorStateError` when the user has no two-factor record; `InvalidConfig`
 * without the `twoFactor` option; `AdapterError` when the store fails.
 * @example
 * ```ts
 * import { resetTwoFactor } from "@portcullis/core/integration"
 *
 * // In an admin action, after checking the caller is support staff:
 * await resetTwoFactor({ userId, reason: "identity checked by video call, ticket 4711", actor: staff.id }, config)
 * ```
 */
export async function resetTwoFactor(input: TwoFactorResetInput, auth: AuthSource): Promise<TwoFactorResetResult> {
  const config = await configFor(auth)
  return (await import("./lib/two-factor/recovery.js")).resetTwoFactor(config, input)
}

/** What {@link health} may be told. */
export interface HealthCheckOptions {
  /**
   * Milliseconds each store's probe may take. Default: the `health.timeout` option (1000 ms),
   * and the report is the one the endpoint's probes share (one run at a time, reused for a
   * second); with another bound, the stores are probed for this call alone.
   */
  timeout?: number
}

/**
 * How the configuration's stores answer, for load balancers and Kubernetes probes
 * (docs/observability.md, "Health checks"): one cheap read of each store the configuration
 * has — the adapter, the session registry, the rate-limit store, the step-up store — all at
 * once, each within the timeout, and the configuration's own problem if it has one. Never
 * writes, never throws: a failing store is a `down` check with its error code.
 *
 * @example
 * ```ts
 * import { health } from "@portcullis/core/integration"
 *
 * // A readiness route of the app's own (or turn on `health: { endpoint: true }`):
 * app.get("/ready", async (_req, res) => {
 *   const report = await health(config)
 *   res.status(report.status === "down" ? 503 : 200).json(report)
 * })
 * ```
 */
export async function health(auth: AuthSource, options: HealthCheckOptions = {}): Promise<HealthReport> {
  const config = runtimeFor(auth).config
  const timeout = options.timeout ?? config.health.timeout
  // The probes' code is loaded by the first check: a server that never asks does not load it.
  const check = async () => (await import("./lib/health/check.js")).checkHealth(config, timeout)
  if (timeout === config.health.timeout) return config.health.shared.get(check)
  return check()
}

/**
 * One page of the stored audit trail (docs/observability.md, "Storing the audit trail"):
 * the records `query` matches — by user, by type (one or several), by time (`since`
 * inclusive, `until` exclusive) — newest first, `limit` per page (default 50, at most 100),
 * and `next` to pass as `cursor` for the page after. Records written while you page never
 * repeat or shift a page: the cursor is the last record's position, not an offset. For an
 * admin page or an export: the app decides who may read whose trail.
 *
 * @throws `InvalidAuditQuery` (an `InvalidRequest`: answer 400) for a malformed query or
 * cursor; `AuditTrailUnsupported` when the adapter has no audit capability; `AdapterError`
 * when the store fails.
 * @example
 * ```ts
 * import { auditTrail } from "@portcullis/core/integration"
 *
 * // The failed sign-ins of one user in the last day, 20 at a time:
 * const page = await auditTrail(config, { userId, type: "signInFailed", since: new Date(Date.now() - 86_400_000), limit: 20 })
 * for (const record of page.records) console.log(record.time, record.ip, record.reason)
 * if (page.next) await auditTrail(config, { userId, type: "signInFailed", since, limit: 20, cursor: page.next })
 * ```
 */
export async function auditTrail(auth: AuthSource, query: AuditQuery = {}): Promise<AuditPage> {
  const methods = auditMethods(await configFor(auth))
  // Checked here too, so a bad query is the same `InvalidAuditQuery` whatever the adapter,
  // and never reaches the store.
  const { checkAuditQuery } = await import("./lib/audit/query.js")
  checkAuditQuery(query)
  return methods.listAuditRecords(query)
}

/**
 * Deletes the stored audit records older than the `audit.retention` option, now, and says
 * how many (`0` with `retention: false`). Portcullis also prunes by itself, at most once an
 * hour per runtime while events are stored; call this from a scheduled job where runtimes
 * are short-lived or to prune on a schedule of your own.
 *
 * @throws `AuditTrailUnsupported` when the adapter has no audit capability; `AdapterError` when the store fails.
 * @example
 * ```ts
 * import { pruneAuditTrail } from "@portcullis/core/integration"
 *
 * export async function scheduled() {
 *   const { deleted } = await pruneAuditTrail(config)
 *   console.log(`pruned ${deleted} audit records`)
 * }
 * ```
 */
export async function pruneAuditTrail(auth: AuthSource): Promise<{ deleted: number }> {
  const config = await configFor(auth)
  const methods = auditMethods(config)
  const retention = config.audit.options.retention
  if (retention === false) return { deleted: 0 }
  return { deleted: await methods.deleteAuditRecordsBefore(new Date(Date.now() - retention * 1000)) }
}

function auditMethods(config: ResolvedConfig): AuditStoreMethods {
  if (config.audit.methods) return config.audit.methods
  throw new AuditTrailUnsupported(
    config.adapter ? "The adapter has no audit capability (createAuditRecord, listAuditRecords, deleteAuditRecordsBefore); see docs/adapters.md" : "The audit trail is stored in the adapter, and this configuration has none",
  )
}

/**
 * The two-factor enrollment code (TOTP through otpauth, the QR encoder behind it), loaded by
 * the first enrollment call: a server that never calls one does not load it at start-up.
 */
function enrollment() {
  return import("./lib/two-factor/enrollment.js")
}

/** The resolved configuration of `auth`, or its configuration error thrown. */
async function configFor(auth: AuthSource): Promise<ResolvedConfig> {
  const config = runtimeFor(auth).config
  const problem = await configProblem(config)
  if (problem) throw problem
  return config
}

export type { HealthReport, HealthStatus, StoreCheck }
export type { AuditPage, AuditQuery }

/**
 * The server functions of the configuration's extensions, by extension id, bound to the
 * browser's request: what each integration hands to app code (`extensions()` in Next.js,
 * `extensions(req, config)` in Express, …), typed from the configuration's `extensions`.
 * `method` says whether the request changes something (anything but `GET`/`HEAD`): such a
 * request from another site is refused (`MissingCSRF`) before any function runs; with
 * `csrfToken` (the form's posted token; `""` when it posted none) the change is also held to
 * core's double-submit check, unless `skipCSRF` (a framework action that checked the origin).
 *
 * @example
 * ```ts
 * const { organizations } = await extensionFunctions({ origin, headers: request.headers, method: request.method }, config)
 * const mine = await organizations.list()
 * ```
 */
export async function extensionFunctions<C extends AuthConfig>(request: Pick<SessionRequest, "origin" | "headers" | "clientAddress" | "skipCSRF" | "csrfToken"> & { method?: string }, auth: C | AuthRuntime): Promise<ExtensionFunctions<C["extensions"]>> {
  // The request carries the call's options too (`clientAddress`, `skipCSRF`).
  return (await runtimeFor(auth).extensionFunctions(request, request)) as ExtensionFunctions<C["extensions"]>
}
export type { ExtensionFunctions }
export type { StepUpStatus, TwoFactorStatus, TotpEnrollment, TwoFactorResetInput, TwoFactorResetResult }

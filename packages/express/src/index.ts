/**
 * Portcullis for Express.
 *
 * Mount the middleware on the base path and read sessions with `getSession`:
 *
 * @example
 * ```ts
 * import express from "express"
 * import { ExpressAuth, getSession, type ExpressAuthConfig } from "@portcullis/express"
 * import Credentials from "@portcullis/core/providers/credentials"
 *
 * const authConfig: ExpressAuthConfig = { providers: [Credentials({ ... })] }
 * const app = express()
 * app.set("trust proxy", 1) // one TLS-terminating proxy in front: https and the client address come from it
 * app.use("/auth", ExpressAuth(authConfig))
 * app.get("/", async (req, res) => {
 *   const session = await getSession(req, authConfig)
 *   res.send(session ? `Hello ${session.user?.name}` : "Not signed in")
 * })
 * ```
 *
 * Express 4's `app.use("/auth/*", …)` and Express 5's `app.use("/auth/{*splat}", …)`
 * mounts work too; the base path is derived from the mount.
 * @module
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AuthConfig, Session, SessionInfo } from "@portcullis/core"
import { InvalidRequest, NotSignedIn } from "@portcullis/core/errors"
import type { AccessToken } from "@portcullis/core"
import {
  invalidRequestResponse,
  listSessions as coreListSessions,
  originFromHeaders,
  readAccessToken,
  readCsrfToken,
  readSession,
  revokeOtherSessions as coreRevokeOtherSessions,
  revokeSession as coreRevokeSession,
  runtimeFor,
  setCookieHeader,
  signOutEverywhere as coreSignOutEverywhere,
  type AuthRuntime,
  type NodeRequest,
  type SessionRequest,
  startTwoFactor as coreStartTwoFactor,
  confirmTwoFactor as coreConfirmTwoFactor,
  disableTwoFactor as coreDisableTwoFactor,
  regenerateTwoFactorBackupCodes as coreRegenerateTwoFactorBackupCodes,
  getTwoFactorStatus as coreGetTwoFactorStatus,
  resetTwoFactor as coreResetTwoFactor,
  health as coreHealth,
  auditTrail as coreAuditTrail,
  pruneAuditTrail as corePruneAuditTrail,
  type AuditPage,
  type AuditQuery,
  type HealthCheckOptions,
  type HealthReport,
  requireStepUp as coreRequireStepUp,
  stepUpStatus as coreStepUpStatus,
  reauthenticateUrl as coreReauthenticateUrl,
  type StepUpStatus,
  type TotpEnrollment,
  type TwoFactorResetInput,
  type TwoFactorResetResult,
  type TwoFactorStatus,
  extensionFunctions,
  type ExtensionFunctions,
} from "@portcullis/core/integration"

export type { Account, DefaultSession, Profile, Session, SessionInfo, User } from "@portcullis/core"
export { customFetch } from "@portcullis/core"
export { AuthError, CredentialsSignin, InvalidRequest, MissingCSRF, NotSignedIn, ReauthRequired, ServiceUnavailable, SessionManagementUnsupported, StepUpRequired, TokenRefreshFailed, TwoFactorCodeInvalid, TwoFactorStateError } from "@portcullis/core/errors"
export type { StepUpStatus, TotpEnrollment, TwoFactorResetInput, TwoFactorResetResult, TwoFactorStatus } from "@portcullis/core/integration"
export type { HealthCheckOptions, HealthReport, HealthStatus, StoreCheck } from "@portcullis/core/integration"
export type { AuditPage, AuditQuery } from "@portcullis/core/integration"
export type { AuditEvent, AuditEventType } from "@portcullis/core/types"
export { AuditTrailUnsupported, InvalidAuditQuery } from "@portcullis/core/errors"
export type { AccessToken } from "@portcullis/core"
export type { Extension, ExtensionCall, ExtensionFunctions } from "@portcullis/core/extension"

/** What {@link getSession} resolves to, as `@auth/express` names it. */
export type GetSessionResult = Promise<Session | null>

/** Configuration of {@link ExpressAuth}: the core configuration. */
export type ExpressAuthConfig = Omit<AuthConfig, "raw">

/** The parts of an Express request this integration reads (Express 4 or 5). */
export interface ExpressLikeRequest extends IncomingMessage {
  protocol: string
  originalUrl: string
  baseUrl: string
  params?: Record<string, unknown>
  body?: unknown
  get(name: string): string | undefined
  host?: string
  /** The client address by Express's `trust proxy` rules (the socket's peer when no proxy is trusted). */
  ip?: string
  app?: { get(setting: string): unknown }
}

/**
 * Middleware that answers every request under its mount path with `Auth()`.
 * It reads the raw body itself; if a body parser ran first, the parsed body is re-encoded.
 */
export function ExpressAuth(config: ExpressAuthConfig) {
  const perBasePath = new Map<string, AuthRuntime>()
  let warnedTrustAll = false
  return async (req: ExpressLikeRequest, res: ServerResponse, next: (err?: unknown) => void): Promise<void> => {
    try {
      const basePath = config.basePath ?? mountPath(req)
      let runtime = perBasePath.get(basePath)
      if (!runtime) {
        // One runtime per mount. The app's own config object when it already serves this
        // base path (the usual case: `basePath` set, or mounted where core's default puts
        // it), so `getSession(req, config)` shares this runtime and its caches; a copy with
        // the mount's base path otherwise.
        const own = runtimeFor(config)
        runtime = own.basePath === basePath ? own : runtimeFor({ ...config, basePath })
        perBasePath.set(basePath, runtime)
      }
      // `true` trusts every hop, so `req.ip` is whatever the client wrote first: said once
      // per middleware (a custom logger is called as often as warn is).
      if (!warnedTrustAll && runtime.config.rateLimit && req.app?.get?.("trust proxy") === true) {
        warnedTrustAll = true
        runtime.config.logger.warn("express-trust-proxy-all")
      }
      // Every request, the session checks most traffic is included, goes through core's Node
      // path: a session check is answered by the session lane without building anything.
      let request: NodeRequest
      try {
        request = nodeRequest(req)
      } catch (error) {
        // A malformed Host or forwarded header, a parsed body that cannot be encoded again:
        // core's own 400, not Express's error page.
        if (!(error instanceof InvalidRequest)) throw error
        await sendWebResponse(res, invalidRequestResponse(error))
        return
      }
      // Core's Node path: no Web Request built with the body, no Web Response to read back.
      // TRACE, TRACK and CONNECT are core's 405, not a 500 from Express's error page.
      await runtime.serveNode(request, res)
    } catch (error) {
      next(error)
    }
  }
}

/**
 * The session of an Express request, or `null` when signed out. Reads only the cookies; safe
 * to call in any route.
 *
 * @throws `ServiceUnavailable` (from `@portcullis/core/errors`) when the session store is
 * down or does not answer within `adapterTimeout`: an outage is not a sign-out.
 * @throws `InvalidRequest` when the request's `Host` or a trusted forwarded header is
 * malformed; answer it with a 400.
 *
 * @example
 * ```ts
 * import { ServiceUnavailable } from "@portcullis/core/errors"
 *
 * app.get("/account", async (req, res, next) => {
 *   try {
 *     const session = await getSession(req, authConfig)
 *     if (!session) return res.redirect("/auth/signin")
 *     res.send(`Hello ${session.user?.name}`)
 *   } catch (error) {
 *     if (error instanceof ServiceUnavailable) return res.status(503).set("Retry-After", "5").send("Please try again shortly")
 *     next(error)
 *   }
 * })
 * ```
 */
export async function getSession(req: ExpressLikeRequest, config: ExpressAuthConfig): Promise<Session | null> {
  // The runtime of `config` itself (core keeps one per config object): nothing is copied
  // per call, so the configuration is resolved once however often sessions are read. A
  // refreshed cookie is not sent from here (this is not the response's owner); the
  // browser's next `<basePath>/session` request sets it.
  return readSession(originOf(req), req.headers.cookie, config)
}

/**
 * The browser's CSRF token for a server-rendered form that posts to one of your routes
 * (put it in a hidden `csrfToken` field); its cookie is set on `res` when the browser had
 * none. {@link revokeSession} and the other changes have core check it.
 *
 * @throws Error when the configuration turned CSRF protection off (`skipCSRFCheck`).
 */
export function getCsrfToken(req: ExpressLikeRequest, res: ServerResponse, config: ExpressAuthConfig): Promise<string> {
  return readCsrfToken(originOf(req), req.headers.cookie, config, cookieSink(res))
}

/**
 * The signed-in user's sessions (`docs/sessions.md`): when each began and was last seen,
 * its browser and address, and which one is this request's (`current`).
 *
 * @throws `NotSignedIn` (no valid session: answer 401 or redirect to sign-in),
 * `SessionManagementUnsupported` (the adapter has no `listSessions`, or JWT sessions without
 * `session.registry`), `ServiceUnavailable` (the store is down).
 * @example
 * ```ts
 * app.get("/account/sessions", async (req, res) => {
 *   const sessions = await listSessions(req, authConfig)
 *   res.json(sessions.map((s) => ({ id: s.id, current: s.current, device: s.userAgent, lastSeen: s.lastSeenAt })))
 * })
 * ```
 */
export function listSessions(req: ExpressLikeRequest, config: ExpressAuthConfig): Promise<SessionInfo[]> {
  return coreListSessions(sessionRequest(req), config)
}

/**
 * Revokes one of the signed-in user's sessions by the `id` {@link listSessions} gave; `false`
 * when none of theirs has it. The form that posts here must carry `csrfToken` (parsed by
 * `express.urlencoded()`), and core checks it with the request's `Origin`. Revoking the
 * request's own session clears its cookie on `res`.
 *
 * @example
 * ```ts
 * app.post("/account/sessions/revoke", express.urlencoded({ extended: false }), async (req, res) => {
 *   await revokeSession(req, authConfig, String(req.body.id), res)
 *   res.redirect(303, "/account/sessions")
 * })
 * ```
 */
export function revokeSession(req: ExpressLikeRequest, config: ExpressAuthConfig, id: string, res?: ServerResponse): Promise<boolean> {
  return coreRevokeSession({ ...sessionRequest(req), id }, config, res && cookieSink(res))
}

/** Revokes every session of the signed-in user but this request's; returns how many. CSRF-checked as {@link revokeSession}. */
export function revokeOtherSessions(req: ExpressLikeRequest, config: ExpressAuthConfig): Promise<number> {
  return coreRevokeOtherSessions(sessionRequest(req), config)
}

/** Revokes every session of the signed-in user, this one too (its cookie cleared on `res`); returns how many. CSRF-checked. */
export function signOutEverywhere(req: ExpressLikeRequest, config: ExpressAuthConfig, res?: ServerResponse): Promise<number> {
  return coreSignOutEverywhere(sessionRequest(req), config, res && cookieSink(res))
}

/**
 * The server functions of the configured extensions (`docs/extensions.md`), by extension id,
 * bound to `req`: its session, language and client address. Typed from `config`'s
 * `extensions` (declare the config with `satisfies ExpressAuthConfig`, not a type
 * annotation, so the extensions' types are kept).
 *
 * A request that can change something (any method but `GET`/`HEAD`) from another site (its
 * `Origin`, or `Sec-Fetch-Site: cross-site`) is refused with `MissingCSRF` before any
 * function runs. A function's own refusals come out as thrown `AuthError`s: `NotSignedIn`
 * (401), `StepUpRequired`, `RateLimited`, `ServiceUnavailable` (its store is down), or the
 * extension's `ExtensionRequestError`.
 *
 * @example
 * ```ts
 * app.post("/notes/mine", async (req, res, next) => {
 *   try {
 *     const { notes } = await extensions(req, authConfig)
 *     res.json({ text: await notes.mine() })
 *   } catch (error) {
 *     if (error instanceof NotSignedIn) return void res.status(401).json({ error: error.type })
 *     next(error)
 *   }
 * })
 * ```
 */
export async function extensions<C extends ExpressAuthConfig>(req: ExpressLikeRequest, config: C): Promise<ExtensionFunctions<C["extensions"]>> {
  const { origin, headers, clientAddress, csrfToken } = sessionRequest(req)
  const method = (req.method ?? "GET").toUpperCase()
  // Express checks nothing of a form post itself: a change is held to core's double-submit
  // check, as the session-management functions are (a post without `csrfToken` is refused).
  const change = method !== "GET" && method !== "HEAD"
  return extensionFunctions({ origin, headers, method, ...(change && { csrfToken: csrfToken ?? "" }), ...(clientAddress && { clientAddress }) }, config)
}

/** What core's session management reads of an Express request: origin, headers, the posted CSRF token. */
function sessionRequest(req: ExpressLikeRequest): SessionRequest {
  const headers = new Headers()
  // `accept-language` for the language an extension's server functions answer in.
  for (const name of ["cookie", "origin", "sec-fetch-site", "user-agent", "accept-language"]) {
    const value = req.headers[name]
    if (typeof value === "string") headers.set(name, value)
  }
  const body = req.body as { csrfToken?: unknown } | undefined
  const csrfToken = body && typeof body === "object" && typeof body.csrfToken === "string" ? body.csrfToken : undefined
  // The address Express settled on (its `trust proxy` setting), as the middleware hands core: the
  // two-factor functions count guesses per address with it.
  const clientAddress = req.ip ?? req.socket?.remoteAddress
  return { origin: originOf(req), headers, ...(csrfToken !== undefined && { csrfToken }), ...(clientAddress && { clientAddress }) }
}

function cookieSink(res: ServerResponse) {
  return (cookie: Parameters<typeof setCookieHeader>[0]) => {
    res.appendHeader("Set-Cookie", setCookieHeader(cookie))
  }
}

/**
 * A valid access token of the signed-in user's account with `provider`, refreshed first
 * when it expires within `tokenRefresh.skew`; concurrent calls (on every instance sharing
 * the adapter's lock) make one refresh. With JWT sessions (`tokenRefresh.jwt`), pass `res`
 * so a rotation's re-issued session cookie reaches the browser. See `docs/tokens.md`.
 *
 * @throws `ReauthRequired` (send the user to `/auth/signin/<provider>`), `TokenRefreshFailed`
 * (the provider could not be asked; retry later), `InvalidRequest` (a malformed `Host`).
 *
 * @example
 * ```ts
 * app.get("/api/repos", async (req, res, next) => {
 *   try {
 *     const { accessToken } = await getAccessToken(req, authConfig, { provider: "github", res })
 *     const repos = await fetch("https://api.github.com/user/repos", { headers: { Authorization: `Bearer ${accessToken}` } })
 *     res.json(await repos.json())
 *   } catch (error) {
 *     if (error instanceof ReauthRequired) return res.redirect("/auth/signin/github")
 *     next(error)
 *   }
 * })
 * ```
 */
export function getAccessToken(
  req: ExpressLikeRequest,
  config: ExpressAuthConfig,
  options: { provider: string; res?: { append(field: string, value: string): unknown } },
): Promise<AccessToken> {
  const { res } = options
  return readAccessToken(originOf(req), req.headers.cookie, config, options.provider, res && ((cookie) => res.append("Set-Cookie", setCookieHeader(cookie))))
}

/** The mount path, without whatever a wildcard (`/auth/*`, `/auth/{*splat}`) captured. */
function mountPath(req: ExpressLikeRequest): string {
  const params = req.params ?? {}
  const captured = typeof params[0] === "string" ? params[0] : Array.isArray(params.splat) ? params.splat.join("/") : typeof params.splat === "string" ? params.splat : undefined
  let base = req.baseUrl || ""
  if (captured && base.endsWith(captured)) base = base.slice(0, base.length - captured.length)
  return base.replace(/\/+$/, "")
}

/**
 * The site origin as Express sees it, checked by core's rules before any URL is built from
 * it (`originFromHeaders` throws `InvalidRequest` on a malformed `Host` or forwarded header).
 * The forwarded headers count only when Express's `trust proxy` trusts the direct peer, and
 * are then removed from what core sees, so Express stays the one place that decides which
 * proxy to believe.
 */
function originOf(req: ExpressLikeRequest): string {
  // Express compiles `trust proxy` into this function; ask it about the direct peer, as
  // Express does for `req.protocol` and `req.host`.
  const trust = req.app?.get("trust proxy fn") as ((addr: string | undefined, i: number) => boolean) | undefined
  const trusted = typeof trust === "function" && trust(req.socket?.remoteAddress, 0)
  return originFromHeaders({
    host: req.get("host"),
    protocol: (req.socket as { encrypted?: boolean } | undefined)?.encrypted ? "https" : "http",
    forwardedHost: req.get("x-forwarded-host"),
    forwardedProto: req.get("x-forwarded-proto"),
    trustForwarded: trusted,
  })
}

/**
 * The request as core's Node path takes it: the origin by Express's `trust proxy` rules, the
 * target, Node's headers (core leaves out the forwarded and hop-by-hop ones), the body — the
 * request stream itself, or what a body parser already read, encoded back — and the client
 * address by `trust proxy` (`req.ip`), else the socket's peer: what rate limits count
 * against, and what new sessions record.
 */
function nodeRequest(req: ExpressLikeRequest): NodeRequest {
  const origin = originOf(req)
  const method = req.method ?? "GET"
  let headers: ExpressLikeRequest["headers"] = req.headers
  let body: NodeRequest["body"]
  if (method !== "GET" && method !== "HEAD") {
    if (req.body !== undefined && req.readableEnded) {
      const web = new Headers()
      const type = req.headers["content-type"]
      if (typeof type === "string") web.set("content-type", type)
      body = reencode(req.body, web)
      const { "content-length": _length, "transfer-encoding": _encoding, ...rest } = req.headers
      headers = { ...rest, "content-type": web.get("content-type") ?? undefined }
    } else {
      body = req as unknown as AsyncIterable<Uint8Array>
    }
  }
  const clientAddress = req.ip ?? req.socket?.remoteAddress
  return { method, origin, target: req.originalUrl, headers, ...(body !== undefined && { body }), ...(clientAddress && { clientAddress }), ...(req.rawHeaders && { rawHeaders: req.rawHeaders }) }
}

/**
 * A body a parser already consumed, encoded back the way its content type says (its
 * essence: the parameters are the client's to write). A value that cannot be encoded —
 * nested too deep for the call stack (a client's few kilobytes of `[[[[…`), or something a
 * parser of the app's made that JSON cannot hold — is core's 400, as for a body core read.
 */
function reencode(body: unknown, headers: Headers): string | Uint8Array {
  // `express.raw()` leaves the bytes themselves: sent on as they came, under their own type
  // (not a Buffer's JSON, `{"type":"Buffer","data":[…]}`, nor its indices as form fields).
  if (body instanceof Uint8Array) return body
  try {
    const essence = (headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase()
    if (essence === "application/x-www-form-urlencoded" && body && typeof body === "object") {
      const params = new URLSearchParams()
      for (const [k, v] of Object.entries(body)) {
        if (Array.isArray(v)) for (const item of v) params.append(k, String(item))
        else if (v !== undefined && v !== null) params.append(k, String(v))
      }
      return params.toString()
    }
    if (typeof body === "string") return body
    headers.set("content-type", "application/json")
    return JSON.stringify(body ?? {})
  } catch {
    throw new InvalidRequest("The parsed request body cannot be encoded again")
  }
}

async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status
  for (const [name, value] of response.headers) {
    if (name === "set-cookie") continue
    res.setHeader(name, value)
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length) res.setHeader("set-cookie", cookies)
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined
  res.end(body)
}

/*
 * Step-up re-authentication (docs/step-up.md) and two-factor enrollment (docs/two-factor.md),
 * for the signed-in user of `req` — the user is the session's, never an id the app passes.
 * The changes are CSRF-checked as {@link revokeSession} (the form posts `csrfToken`, parsed
 * by `express.urlencoded()`) and need a recent step-up: `StepUpRequired` otherwise, to be
 * answered with a redirect to {@link reauthenticateUrl}.
 */

/**
 * The gate for your own sensitive routes (delete the account, change the email, …): the
 * signed-in user when the session proved a first factor within `stepUp.maxAge`.
 *
 * @throws `NotSignedIn`, `StepUpRequired`, `ServiceUnavailable` (the step-up store is down: refused)
 * @example
 * ```ts
 * app.post("/account/delete", express.urlencoded({ extended: false }), async (req, res) => {
 *   try {
 *     const { userId } = await requireStepUp(req, authConfig)
 *     await deleteUser(userId)
 *     res.redirect(303, "/")
 *   } catch (error) {
 *     if (error instanceof StepUpRequired) return res.redirect(303, reauthenticateUrl(req, authConfig, "/account"))
 *     throw error
 *   }
 * })
 * ```
 */
export function requireStepUp(req: ExpressLikeRequest, config: ExpressAuthConfig): Promise<{ userId: string }> {
  return coreRequireStepUp(sessionRequest(req), config)
}

/** Whether the session of `req` stepped up recently, and until when: `{ signedIn, fresh, freshUntil }`. */
export function stepUpStatus(req: ExpressLikeRequest, config: ExpressAuthConfig): Promise<StepUpStatus> {
  return coreStepUpStatus(sessionRequest(req), config)
}

/** The built-in re-authentication page (`<basePath>/reauthenticate`), coming back to `callbackUrl`. */
export function reauthenticateUrl(req: ExpressLikeRequest, config: ExpressAuthConfig, callbackUrl: string): string {
  return coreReauthenticateUrl(originOf(req), config, callbackUrl)
}

/**
 * Starts enrollment: a new TOTP secret, pending until {@link confirmTwoFactor}. Show `qrSvg`.
 * `account` (the label in the authenticator app) defaults to the user's email.
 *
 * @example
 * ```ts
 * app.post("/account/2fa/start", express.urlencoded({ extended: false }), async (req, res) => {
 *   try {
 *     const { qrSvg, uri } = await startTwoFactor(req, authConfig)
 *     res.render("2fa-confirm", { qrSvg, uri })
 *   } catch (error) {
 *     if (error instanceof StepUpRequired) return res.redirect(303, reauthenticateUrl(req, authConfig, "/account/2fa"))
 *     throw error
 *   }
 * })
 * ```
 */
export function startTwoFactor(req: ExpressLikeRequest, config: ExpressAuthConfig, input: { account?: string } = {}): Promise<TotpEnrollment> {
  return coreStartTwoFactor({ ...sessionRequest(req), ...(input.account !== undefined && { account: input.account }) }, config)
}

/** Confirms enrollment with the app's current code: 2FA on; the ten backup codes are answered once. Needs a step-up. */
export function confirmTwoFactor(req: ExpressLikeRequest, config: ExpressAuthConfig, input: { code: string }): Promise<{ backupCodes: string[] }> {
  return coreConfirmTwoFactor({ ...sessionRequest(req), code: input.code }, config)
}

/** Turns 2FA off; needs a step-up and a current code. */
export function disableTwoFactor(req: ExpressLikeRequest, config: ExpressAuthConfig, input: { code: string }): Promise<void> {
  return coreDisableTwoFactor({ ...sessionRequest(req), code: input.code }, config)
}

/** Ten new backup codes (the old ones stop working); needs a step-up and a current code. */
export function regenerateTwoFactorBackupCodes(req: ExpressLikeRequest, config: ExpressAuthConfig, input: { code: string }): Promise<{ backupCodes: string[] }> {
  return coreRegenerateTwoFactorBackupCodes({ ...sessionRequest(req), code: input.code }, config)
}

/** Whether the signed-in user has 2FA on (or pending) and how many backup codes are left. */
export function getTwoFactorStatus(req: ExpressLikeRequest, config: ExpressAuthConfig): Promise<TwoFactorStatus> {
  return coreGetTwoFactorStatus(sessionRequest(req), config)
}

/**
 * Account recovery for a user who lost their authenticator and backup codes (docs/two-factor.md,
 * "Lost your authenticator"): removes their two-factor record, ends all their sessions, fires
 * `twoFactorReset` with `reason` and `actor`, and mails them a notice. For support staff: it
 * reads no request and trusts `userId`, so check the caller's rights before calling it.
 *
 * @example
 * ```ts
 * app.post("/admin/users/:id/reset-2fa", requireSupportStaff, async (req, res) => {
 *   res.json(await resetTwoFactor(authConfig, { userId: req.params.id, reason: req.body.reason, actor: res.locals.staffId }))
 * })
 * ```
 */
export function resetTwoFactor(config: ExpressAuthConfig, input: TwoFactorResetInput): Promise<TwoFactorResetResult> {
  return coreResetTwoFactor(input, config)
}

/**
 * How the configuration's stores answer, for load balancers and Kubernetes probes
 * (docs/observability.md, "Health checks"): one read of each store, each within the
 * timeout. Never throws. Or turn on `health: { endpoint: true }` for `GET <basePath>/health`.
 *
 * @example
 * ```ts
 * app.get("/ready", async (_req, res) => {
 *   const report = await health(authConfig)
 *   res.status(report.status === "down" ? 503 : 200).set("Cache-Control", "no-store").json(report)
 * })
 * ```
 */
export function health(config: ExpressAuthConfig, options?: HealthCheckOptions): Promise<HealthReport> {
  return coreHealth(config, options)
}

/**
 * One page of the stored audit trail (docs/observability.md, "Storing the audit trail"): the
 * records `query` matches by user, type (one or several) and time, newest first, at most 100
 * a page, and `next` to pass as `cursor` for the page after. The app decides who may read it.
 *
 * @throws `InvalidAuditQuery` (an `InvalidRequest`: answer 400) for a malformed query or
 * cursor; `AuditTrailUnsupported` when the adapter has no audit capability.
 * @example
 * ```ts
 * app.get("/admin/audit", requireAdmin, async (req, res, next) => {
 *   try {
 *     // Only strings: `String(req.query.user)` would ask for the user "undefined" (or "a,b" for `?user=a&user=b`).
 *     const text = (value: unknown) => (typeof value === "string" && value !== "" ? value : undefined)
 *     res.json(await auditTrail(authConfig, { userId: text(req.query.user), limit: 20, cursor: text(req.query.cursor) }))
 *   } catch (error) {
 *     if (error instanceof InvalidAuditQuery) return void res.status(400).json({ error: error.type })
 *     next(error)
 *   }
 * })
 * ```
 */
export function auditTrail(config: ExpressAuthConfig, query?: AuditQuery): Promise<AuditPage> {
  return coreAuditTrail(config, query)
}

/** Deletes the stored audit records older than `audit.retention` now, for a scheduled job; how many. */
export function pruneAuditTrail(config: ExpressAuthConfig): Promise<{ deleted: number }> {
  return corePruneAuditTrail(config)
}

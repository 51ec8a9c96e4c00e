/**
 * Portcullis for Qwik City.
 *
 * `QwikAuth$((ev) => config)` returns the `onRequest` middleware (serves `/auth/*` and loads
 * the session of every other request), the `useSession` route loader, and the `useSignIn`
 * and `useSignOut` global actions. Export all four from a plugin file so Qwik City runs them.
 *
 * @example
 * ```ts
 * // src/routes/plugin@auth.ts
 * import { QwikAuth$ } from "@portcullis/qwik"
 * import GitHub from "@portcullis/core/providers/github"
 *
 * export const { onRequest, useSession, useSignIn, useSignOut } = QwikAuth$(() => ({ providers: [GitHub] }))
 * ```
 * ```tsx
 * // a component
 * const session = useSession()
 * const signIn = useSignIn()
 * return <Form action={signIn} reloadDocument>
 *   <input type="hidden" name="providerId" value="github" />
 *   <button>Sign in</button>
 * </Form>
 * ```
 * @module
 */
import { implicit$FirstArg, inlinedQrl, type QRL } from "@builder.io/qwik"
import { globalActionQrl, routeLoaderQrl, validatorQrl, type RequestEvent, type RequestEventCommon, type RequestHandler } from "@builder.io/qwik-city"
import { setEnvDefaults as applyEnv, type AccessToken, type AuthConfig, type Cookie, type Session } from "@portcullis/core"
import { InvalidRequest } from "@portcullis/core/errors"
import { extensionFunctions, invalidRequestResponse, originOfUrl, readAccessToken, readSession, runtimeFor, serverSignIn, serverSignOut, sessionManager, underBasePath, type AuthRuntime, type ExtensionFunctions, type SessionManager } from "@portcullis/core/integration"
import { loadSessionSlot, sessionOf, type SessionSlot } from "./lib/session.js"
import { validateSignIn, validateSignOut, type SignInInput, type SignOutInput } from "./lib/validate.js"

export type { AccessToken, Account, DefaultSession, Profile, Session, SessionInfo, User } from "@portcullis/core"
export type { SessionManager } from "@portcullis/core/integration"
export type { Extension, ExtensionCall, ExtensionFunctions } from "@portcullis/core/extension"
/** Account recovery for support staff (docs/two-factor.md, "Lost your authenticator"): `resetTwoFactor({ userId, reason, actor }, config)`. */
export { resetTwoFactor, type TwoFactorResetInput, type TwoFactorResetResult } from "@portcullis/core/integration"
/** Health checks for load balancers and Kubernetes probes (docs/observability.md, "Health checks"): `health(config)`, or `health: { endpoint: true }` for `GET <basePath>/health`. */
export { health, type HealthCheckOptions, type HealthReport, type HealthStatus, type StoreCheck } from "@portcullis/core/integration"
/** The stored audit trail (docs/observability.md, "Storing the audit trail"): `auditTrail(config, { userId, type, since, until, limit, cursor })`, and `pruneAuditTrail(config)` for a scheduled job. */
export { auditTrail, pruneAuditTrail, type AuditPage, type AuditQuery } from "@portcullis/core/integration"
export { AuditTrailUnsupported, InvalidAuditQuery } from "@portcullis/core/errors"
export { customFetch } from "@portcullis/core"
export { AuthError, CredentialsSignin, InvalidRequest, NotSignedIn, ReauthRequired, ServiceUnavailable, SessionManagementUnsupported, TokenRefreshFailed } from "@portcullis/core/errors"
export { validateSignIn, validateSignOut, validationSuccess } from "./lib/validate.js"
export type { SignInFieldErrors, SignInInput, SignOutFieldErrors, SignOutInput, ValidationFailure, ValidationSuccess } from "./lib/validate.js"

/** Configuration of {@link QwikAuth$}: the core configuration; `basePath` defaults to `/auth`. */
export type QwikAuthConfig = Omit<AuthConfig, "raw">

/** What {@link getSessionData} resolves to: the session and the cookies its check set. */
export interface SessionData {
  /** `Set-Cookie` values from the session check (a refreshed JWT, a cleared stale cookie). */
  cookie: string[]
  data: Session | null
}

/** What {@link getSessionData} resolves to, as `@auth/qwik` names it. */
export type GetSessionResult = Promise<SessionData>

/**
 * Fills `config` from the environment Qwik City hands a request (`ev.env`, which also sees
 * Vite's `.env` files and platform bindings), as `@auth/qwik`'s `setEnvDefaults` does:
 * `AUTH_SECRET` (and `AUTH_SECRET_1..3`), `AUTH_URL`'s path as `basePath`,
 * `AUTH_TRUST_HOST`, `AUTH_REDIRECT_PROXY_URL`, and `AUTH_<PROVIDER>_ID`/`_SECRET`/`_ISSUER`
 * for providers that left them out. Values the config sets win.
 *
 * @example
 * ```ts
 * export const { onRequest, useSession } = QwikAuth$((ev) => {
 *   const config = { providers: [GitHub] }
 *   setEnvDefaults(ev.env, config)
 *   return config
 * })
 * ```
 */
export function setEnvDefaults(env: { get(name: string): string | undefined }, config: AuthConfig): void {
  const read = new Proxy({} as Record<string, string | undefined>, { get: (_, name) => (typeof name === "string" ? env.get(name) : undefined) })
  applyEnv(read, config)
}

const SESSION_KEY = "portcullis.session"

/**
 * The session of a request outside the hooks (an endpoint, another middleware), with the
 * cookies the check produced for you to forward.
 *
 * @throws {@link ServiceUnavailable} when the session store is down or slower than
 * `adapterTimeout` (an outage is not a sign-out); `useSession` then fails its page with a
 * `503` instead, while pages that do not use it keep working.
 *
 * @example
 * ```ts
 * export const onGet: RequestHandler = async (ev) => {
 *   try {
 *     const { data } = await getSessionData(ev.request, authConfig)
 *     ev.json(200, { signedIn: !!data })
 *   } catch (error) {
 *     if (error instanceof ServiceUnavailable) throw ev.error(503, "Please try again shortly")
 *     throw error
 *   }
 * }
 * ```
 * @throws InvalidRequest when the request URL's host or protocol is malformed (Qwik City
 * builds it from the `Host` header): answer it with a 400.
 */
export async function getSessionData(request: Request, config: QwikAuthConfig): Promise<SessionData> {
  const cookie: string[] = []
  const data = await readSession(originOfUrl(request.url), request.headers.get("cookie"), config, (c) => cookie.push(serializeCookie(c)))
  return { cookie, data }
}

/**
 * A valid access token of the signed-in user's account with `provider`, refreshed first
 * when it expires within `tokenRefresh.skew`; concurrent calls make one refresh. With JWT
 * sessions (`tokenRefresh.jwt`) a rotation re-issues the session cookie on `ev`'s response.
 * See `docs/tokens.md`.
 *
 * @throws `ReauthRequired` (sign in with the provider again), `TokenRefreshFailed` (retry
 * later), `InvalidRequest` (a malformed host).
 *
 * @example
 * ```ts
 * export const onGet: RequestHandler = async (ev) => {
 *   const { accessToken } = await getAccessToken(ev, authConfig, { provider: "github" })
 *   ev.json(200, await (await fetch("https://api.github.com/user", { headers: { Authorization: `Bearer ${accessToken}` } })).json())
 * }
 * ```
 */
export function getAccessToken(ev: RequestEventCommon, config: QwikAuthConfig, params: { provider: string }): Promise<AccessToken> {
  return readAccessToken(originOfUrl(ev.url), ev.request.headers.get("cookie"), config, params.provider, cookieSink(ev))
}

/**
 * The server functions of the configured extensions (`docs/extensions.md`), by extension id,
 * bound to the request of `ev`: its session, language, method and client address. Pass the
 * config object your `QwikAuth$` function returns (one object per app, so both use one
 * runtime). Typed from its `extensions` (declare it with `satisfies QwikAuthConfig`, not a
 * type annotation, so the extensions' types are kept).
 *
 * A request that can change something (not `GET`/`HEAD`: a `routeAction$` is a POST) from
 * another site (its `Origin`, or `Sec-Fetch-Site: cross-site`) is refused with `MissingCSRF`
 * before any function runs; Qwik City's own `checkOrigin` refuses such actions first.
 *
 * @throws `InvalidRequest` (a malformed host).
 * @example
 * ```ts
 * export const useNotes = routeLoader$(async (ev) => (await extensions(ev, authConfig)).notes.mine())
 * export const useSave = routeAction$(async (form, ev) => (await extensions(ev, authConfig)).notes.save(String(form.text)))
 * ```
 */
export async function extensions<C extends QwikAuthConfig>(ev: RequestEventCommon, config: C): Promise<ExtensionFunctions<C["extensions"]>> {
  const clientAddress = ev.clientConn?.ip
  return extensionFunctions({ origin: originOfUrl(ev.url), headers: ev.request.headers, method: ev.request.method, ...(clientAddress && { clientAddress }) }, config)
}

/** The Auth.js name of {@link getSessionData}. */
export const getSession = getSessionData

/** Creates the Qwik City integration from a QRL of the config function (use {@link QwikAuth$}). */
export function QwikAuthQrl(configQrl: QRL<(ev: RequestEventCommon) => QwikAuthConfig | PromiseLike<QwikAuthConfig>>) {
  const perEvent = new WeakMap<object, Promise<AuthRuntime>>()
  // The runtime of the config the function returns: one per config object, serving the
  // endpoints, the session read and the actions (return one shared object per app).
  const runtimeOf = (ev: RequestEventCommon): Promise<AuthRuntime> => {
    // sharedMap is one object per request, shared by onRequest, loaders and actions.
    let pending = perEvent.get(ev.sharedMap)
    if (!pending) {
      pending = Promise.resolve(configQrl(ev)).then(runtimeFor)
      perEvent.set(ev.sharedMap, pending)
    }
    return pending
  }

  const onRequest: RequestHandler = async (ev) => {
    const runtime = await runtimeOf(ev)
    // Core checks the host of the request it is given, as it does for every request.
    // The peer address Qwik City's server adapter reports, for rate limits.
    if (underBasePath(ev.url.pathname, runtime.basePath)) throw await send(ev, await runtime.handle(ev.request, { clientAddress: ev.clientConn?.ip }))
    let origin: string
    try {
      origin = originOfUrl(ev.url)
    } catch (error) {
      // Every request's session is read here, so a host no URL can be built from is core's
      // 400 for every request, not a TypeError (a 500) on the way to core.
      if (error instanceof InvalidRequest) throw await send(ev, invalidRequestResponse(error))
      throw error
    }
    const slot = await loadSessionSlot(() => readSession(origin, ev.request.headers.get("cookie"), runtime, cookieSink(ev)))
    ev.sharedMap.set(SESSION_KEY, slot)
  }

  // A page that needs the session cannot render a truthful one during an outage: 503.
  const useSession = routeLoaderQrl(
    inlinedQrl(
      (ev: RequestEventCommon) =>
        sessionOf(ev.sharedMap.get(SESSION_KEY) as SessionSlot | undefined, (outage) => {
          ev.headers.set("Retry-After", String(outage.retryAfter))
          throw ev.error(503, "ServiceUnavailable")
        }),
      "PortcullisUseSession",
    ),
  )

  const useSignIn = globalActionQrl(
    inlinedQrl(async (input: SignInInput, ev: RequestEvent) => {
      const runtime = await runtimeOf(ev)
      const origin = siteOrigin(ev)
      assertSameOrigin(ev, origin)
      const { redirectTo: optionRedirect, redirect: _ignored, ...rest } = input.options ?? {}
      const fields: Record<string, string> = {}
      for (const [k, v] of Object.entries(rest)) if (v !== undefined && v !== null && k !== "csrfToken" && k !== "callbackUrl") fields[k] = String(v)
      const target = await serverSignIn(
        {
          origin,
          headers: ev.request.headers,
          provider: input.providerId,
          fields,
          redirectTo: input.redirectTo ?? optionRedirect ?? currentPage(ev.url),
          authorizationParams: Object.fromEntries(new URLSearchParams(input.authorizationParams ?? "")),
          skipCSRF: true,
        },
        runtime,
        cookieSink(ev),
      )
      throw ev.redirect(303, target)
    }, "PortcullisUseSignIn"),
    validatorQrl(inlinedQrl((ev: RequestEvent, data: unknown) => validateSignIn(data, ev.url.origin), "PortcullisValidateSignIn")),
  )

  const useSignOut = globalActionQrl(
    inlinedQrl(async (input: SignOutInput, ev: RequestEvent) => {
      const runtime = await runtimeOf(ev)
      const origin = siteOrigin(ev)
      assertSameOrigin(ev, origin)
      const target = await serverSignOut({ origin, headers: ev.request.headers, redirectTo: input.redirectTo ?? currentPage(ev.url), skipCSRF: true }, runtime, cookieSink(ev))
      throw ev.redirect(303, target)
    }, "PortcullisUseSignOut"),
    validatorQrl(inlinedQrl((ev: RequestEvent, data: unknown) => validateSignOut(data, ev.url.origin), "PortcullisValidateSignOut")),
  )

  /**
   * Session management for a request (`docs/sessions.md`), in a `routeLoader$` (`list()`) or
   * a `routeAction$` (`revoke(id)`, `revokeOthers()`, `signOutEverywhere()`; Qwik refuses
   * cross-origin action posts, and core checks the request's `Origin` again).
   */
  const sessions = async (ev: RequestEventCommon): Promise<SessionManager> =>
    sessionManager(siteOrigin(ev), ev.request.headers, await runtimeOf(ev), cookieSink(ev))

  return { onRequest, useSession, useSignIn, useSignOut, sessions }
}

/**
 * Creates the Qwik City integration. The config function runs once per request (it gets
 * the request event: read `ev.env`, vary by host…); environment variables such as
 * `AUTH_SECRET` are also read from `process.env` by core.
 */
export const QwikAuth$ = implicit$FirstArg(QwikAuthQrl)

/** The page the action was posted from, without Qwik's `qaction` parameter. */
function currentPage(url: URL): string {
  const page = new URL(url)
  page.searchParams.delete("qaction")
  return page.href
}

/**
 * The actions call core with its CSRF token check off, as Auth.js does: Qwik City's origin
 * check (`checkOrigin`, on by default) refuses cross-site form posts first. This repeats it
 * for sign-in and sign-out, in case an app turned Qwik's off.
 */
function assertSameOrigin(ev: RequestEventCommon, siteOrigin: string): void {
  const origin = ev.request.headers.get("origin")
  if ((origin !== null && origin !== siteOrigin) || ev.request.headers.get("sec-fetch-site") === "cross-site") {
    throw ev.error(403, "Cross-site sign-in and sign-out are refused")
  }
}

/**
 * `ev.url`'s origin, checked as core checks hosts: Qwik City builds `ev.url` from the `Host`
 * header (or `PROTOCOL_HEADER`/`HOST_HEADER`), so it may carry a hostile one. A 400 then.
 */
function siteOrigin(ev: RequestEventCommon): string {
  try {
    return originOfUrl(ev.url)
  } catch (error) {
    if (error instanceof InvalidRequest) throw ev.error(400, `InvalidRequest: ${error.message}`)
    throw error
  }
}

/** Answers with a core `Response`; the caller throws what this returns, as Qwik wants. */
async function send(ev: RequestEventCommon, response: Response) {
  ev.status(response.status)
  for (const [name, value] of response.headers) if (name !== "set-cookie") ev.headers.set(name, value)
  // Set-Cookie lines go through untouched (Qwik's send(Response) would re-parse them).
  for (const line of response.headers.getSetCookie()) ev.headers.append("set-cookie", line)
  return ev.send(response.status, new Uint8Array(await response.arrayBuffer()))
}

function cookieSink(ev: RequestEventCommon) {
  return ({ name, value, options }: Cookie) => {
    // Qwik writes string values as given; encode as core does in its own headers.
    ev.cookie.set(name, encodeURIComponent(value), {
      ...(options.domain !== undefined && { domain: options.domain }),
      ...(options.expires !== undefined && { expires: options.expires }),
      ...(options.maxAge !== undefined && { maxAge: options.maxAge }),
      ...(options.httpOnly !== undefined && { httpOnly: options.httpOnly }),
      ...(options.secure !== undefined && { secure: options.secure }),
      ...(typeof options.sameSite === "string" ? { sameSite: options.sameSite } : options.sameSite === true ? { sameSite: "strict" as const } : {}),
      path: options.path ?? "/",
    })
  }
}

function serializeCookie({ name, value, options }: Cookie): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path ?? "/"}`]
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`)
  else if (options.expires) parts.push(`Expires=${options.expires.toUTCString()}`)
  if (options.domain) parts.push(`Domain=${options.domain}`)
  if (options.httpOnly) parts.push("HttpOnly")
  if (options.secure) parts.push("Secure")
  if (options.sameSite) parts.push(`SameSite=${options.sameSite === true ? "Strict" : options.sameSite[0]!.toUpperCase() + options.sameSite.slice(1)}`)
  return parts.join("; ")
}

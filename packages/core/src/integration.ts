/**
 * Building blocks for framework integrations (SvelteKit, Qwik City, your own): the
 * server-side sign-in, sign-out and session reads that every integration needs, done once
 * on top of `Auth()`. Apps do not need this module; integration authors do.
 *
 * @example
 * ```ts
 * import { originOfUrl, readSession, variants } from "@portcullis/core/integration"
 *
 * const { session } = variants(config)
 * // originOfUrl checks the host and scheme first (InvalidRequest, a 400, when malformed)
 * const current = await readSession(originOfUrl(url), request.headers.get("cookie"), session, (c) => cookies.set(c.name, c.value, c.options))
 * ```
 * @module
 */
import { InvalidRequest, ServiceUnavailable } from "./errors.js"
import { Auth, raw, skipCSRFCheck, type AuthConfig, type Cookie, type Session } from "./index.js"
import { requestErrorResponse } from "./lib/errors.js"
import { originFromHeaders } from "./lib/http/host.js"
import { toResponse } from "./lib/http/response.js"

export { checkHost, checkProto, originFromHeaders, type OriginHeaders, type Proto } from "./lib/http/host.js"

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

/** The three configurations one app config needs, built once so core caches each resolution. */
export interface Variants {
  /** For `handle`: the HTTP endpoints, CSRF on. */
  http: AuthConfig
  /** For `locals.auth()`: internal response objects. */
  session: AuthConfig
  /** For the form actions: internal response objects, CSRF left to the framework's origin check. */
  action: AuthConfig
}

const variantCache = new WeakMap<AuthConfig, Variants>()

/**
 * The variants of `config`, memoised per config object: core resolves each configuration
 * object once, so handing it the same three objects on every request keeps that cache warm
 * (a lazy config that returns one shared object per app gets the same benefit).
 */
export function variants(config: AuthConfig): Variants {
  let cached = variantCache.get(config)
  if (!cached) {
    // basePath is fixed here (not left to core) because the hook must know it to route.
    const http: AuthConfig = { ...config, basePath: normaliseBasePath(config.basePath) }
    cached = { http, session: { ...http, raw }, action: { ...http, raw, skipCSRFCheck } }
    variantCache.set(config, cached)
  }
  return cached
}

export function normaliseBasePath(basePath: string | undefined): string {
  if (basePath === undefined) return "/auth"
  return basePath.replace(/\/+$/, "")
}

/** Whether `pathname` is `<basePath>` or below it. */
export function underBasePath(pathname: string, basePath: string): boolean {
  return pathname === basePath || pathname.startsWith(`${basePath}/`)
}

/** Where cookies from an internal response go: SvelteKit's `event.cookies`, Qwik's `cookie`. */
export type CookieSink = (cookie: Cookie) => void

/**
 * The session for a request's cookies, or `null` when signed out. Only the `Cookie` header
 * is forwarded: nothing else about the request can change what the session is.
 *
 * @throws {@link ServiceUnavailable} when the store could not be read (an outage is not a
 * sign-out: the app decides whether to show a retry page or degrade), `AuthError`/`Error`
 * for configuration problems. `origin` must be one {@link originFromHeaders} or
 * {@link originOfUrl} returned.
 */
export async function readSession(origin: string, cookieHeader: string | null, config: AuthConfig, setCookie: CookieSink): Promise<Session | null> {
  const headers = new Headers()
  if (cookieHeader) headers.set("cookie", cookieHeader)
  const internal = await Auth(new Request(`${origin}${config.basePath}/session`, { headers }), config as AuthConfig & { raw: typeof raw })
  for (const cookie of internal.cookies ?? []) setCookie(cookie)
  const status = internal.status ?? 200
  const body = internal.body as (Session & { message?: string }) | null | undefined
  if (status !== 200) throw new Error(body?.message ?? `Session request failed with ${status}`)
  return body && Object.keys(body).length ? body : null
}

/**
 * Turns the `Response` of `GET <basePath>/session` into what server-side readers return:
 * the session, `null` when signed out, a thrown {@link ServiceUnavailable} on `503` (the
 * store is down), a thrown `Error` with core's message on any other failure. For
 * integrations that call `Auth()` without `raw` (Express, SolidStart).
 *
 * @example
 * ```ts
 * const session = await sessionFromResponse(await Auth(new Request(`${origin}/auth/session`, { headers }), config))
 * ```
 */
export async function sessionFromResponse(response: Response): Promise<Session | null> {
  const data = (await response.json().catch(() => null)) as (Session & { error?: string; message?: string }) | null
  if (response.status === 503 && data?.error === "ServiceUnavailable") throw new ServiceUnavailable(data.message ?? "The session store is unavailable")
  if (response.status !== 200) throw new Error(data?.message ?? `Session request failed with ${response.status}`)
  return data && Object.keys(data).length ? data : null
}

export interface ServerSignInInput {
  origin: string
  /** Headers of the browser's request (cookies, user agent, language). */
  headers: Headers
  provider: string | undefined
  /** Fields posted to core: credentials and anything else the form carried. */
  fields: Record<string, string>
  redirectTo: string | undefined
  authorizationParams: Record<string, string>
}

/**
 * Runs a sign-in on the server, as Auth.js's server `signIn` does, and returns where the
 * browser goes next. Failures come back as a redirect too (the sign-in page with
 * `?error=`), because the `X-Auth-Return-Redirect` header asks core for one instead of a throw.
 */
export async function serverSignIn(input: ServerSignInInput, config: AuthConfig, setCookie: CookieSink): Promise<string> {
  const basePath = config.basePath!
  const callbackUrl = input.redirectTo || input.headers.get("referer") || "/"
  const provider = input.provider ? findProvider(config, input.provider) : undefined
  if (!provider) {
    // No provider, or one the config doesn't know: the sign-in page lists what there is.
    const url = new URL(`${basePath}/signin`, input.origin)
    url.searchParams.set("callbackUrl", callbackUrl)
    return url.href
  }
  const id = encodeURIComponent(provider.id)
  const path = provider.type === "credentials" ? `${basePath}/callback/${id}` : `${basePath}/signin/${id}`
  const url = new URL(path, input.origin)
  for (const [k, v] of Object.entries(input.authorizationParams)) url.searchParams.set(k, v)
  const body = new URLSearchParams({ ...input.fields, callbackUrl })
  return post(url, input.headers, body, config, setCookie)
}

/**
 * Runs a sign-out on the server and returns where the browser goes next. With `csrfToken`
 * (from a form that carried one), core checks it against the browser's CSRF cookie.
 */
export async function serverSignOut(input: { origin: string; headers: Headers; redirectTo: string | undefined; csrfToken?: string }, config: AuthConfig, setCookie: CookieSink): Promise<string> {
  const callbackUrl = input.redirectTo || input.headers.get("referer") || "/"
  const url = new URL(`${config.basePath}/signout`, input.origin)
  const body = new URLSearchParams({ callbackUrl })
  if (input.csrfToken) body.set("csrfToken", input.csrfToken)
  return post(url, input.headers, body, config, setCookie)
}

/**
 * The browser's CSRF token (minting one and its cookie when it has none), for server-rendered
 * forms that post to framework form actions: put it in a hidden `csrfToken` field and the
 * action can have core verify it (double submit), on top of the framework's origin check.
 * `config` must be a `raw` variant (see {@link variants}).
 */
export async function readCsrfToken(origin: string, cookieHeader: string | null, config: AuthConfig, setCookie: CookieSink): Promise<string> {
  const headers = new Headers()
  if (cookieHeader) headers.set("cookie", cookieHeader)
  const internal = await Auth(new Request(`${origin}${config.basePath}/csrf`, { headers }), config as AuthConfig & { raw: typeof raw })
  for (const cookie of internal.cookies ?? []) setCookie(cookie)
  const token = (internal.body as { csrfToken?: unknown } | undefined)?.csrfToken
  if (typeof token !== "string") throw new Error("CSRF protection is off for this configuration (skipCSRFCheck)")
  return token
}

async function post(url: URL, browserHeaders: Headers, body: URLSearchParams, config: AuthConfig, setCookie: CookieSink): Promise<string> {
  const headers = new Headers()
  for (const name of ["cookie", "user-agent", "accept-language", "referer"]) {
    const value = browserHeaders.get(name)
    if (value) headers.set(name, value)
  }
  headers.set("content-type", "application/x-www-form-urlencoded")
  headers.set("x-auth-return-redirect", "1")
  const internal = await Auth(new Request(url, { method: "POST", headers, body }), config as AuthConfig & { raw: typeof raw })
  for (const cookie of internal.cookies ?? []) setCookie(cookie)
  const target = internal.redirect ?? (internal.body as { url?: string } | undefined)?.url
  if (typeof target !== "string") throw new Error(`Auth answered ${internal.status ?? 200} without a redirect`)
  return target
}

interface ProviderInfo {
  id: string
  type: string
}

function findProvider(config: AuthConfig, id: string): ProviderInfo | undefined {
  for (const p of config.providers ?? []) {
    const provider = (typeof p === "function" ? p() : p) as ProviderInfo
    if (provider.id === id) return provider
  }
  return undefined
}

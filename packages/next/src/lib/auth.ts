import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import type { Awaitable, Session } from "@portcullis/core"
import { InvalidRequest, ServiceUnavailable } from "@portcullis/core/errors"
import { invalidRequestResponse, originOfUrl } from "@portcullis/core/integration"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { NextResponse, type NextRequest } from "next/server"
import { prepareConfig, type NextAuthConfigInput, type PreparedConfig } from "./config.js"
import { readSession, type SessionResult } from "./session.js"

/** A request seen by a function wrapped with `auth(fn)`: `req.auth` is its session or `null`. */
export type NextAuthRequest = NextRequest & { auth: Session | null }

/** A route handler or proxy (middleware) function wrapped by `auth(fn)`. */
export type NextAuthCallback<Ctx = any> = (request: NextAuthRequest, context: Ctx) => Awaitable<Response | void | undefined>

/** The parts of a Node request that the Pages Router hands to API routes and `getServerSideProps`. */
export interface PagesRequest {
  headers: IncomingHttpHeaders
  socket?: IncomingMessage["socket"]
}

/** The parts of a Node response that `auth(req, res)` writes `Set-Cookie` to. */
export type PagesResponse = Pick<ServerResponse, "getHeader" | "setHeader">

/** `getServerSideProps`' context, or anything else carrying a Pages request and response. */
export interface PagesContext {
  req: PagesRequest
  res: PagesResponse
}

/**
 * Reads sessions wherever Next.js code runs. One function, five forms:
 *
 * @example
 * ```ts
 * // Server Components, Route Handlers, Server Actions: no arguments.
 * const session = await auth()
 *
 * // proxy.ts (middleware.ts before Next 16): runs callbacks.authorized and refreshes the cookie.
 * export { auth as proxy } from "@/auth"
 *
 * // A wrapped route handler or proxy: the session is on req.auth.
 * export const GET = auth((req) => Response.json({ name: req.auth?.user?.name ?? null }))
 *
 * // Pages Router: API routes and getServerSideProps (Set-Cookie goes on the Node response).
 * const session = await auth(req, res)
 * export const getServerSideProps = async (ctx) => ({ props: { session: await auth(ctx) } })
 * ```
 *
 * While the session store is down (or slower than `adapterTimeout`), the forms that return a
 * session throw `ServiceUnavailable` (from `@portcullis/core/errors`) instead of returning
 * `null`, and the proxy / wrapped forms answer `503` with `Retry-After` without running the
 * wrapped function: an outage is never taken for "signed out".
 */
export interface AuthFunction {
  /** The session of the current request in a Server Component, Route Handler or Server Action. */
  (): Promise<Session | null>
  /** A route handler or proxy function that sees the session as `req.auth`, after `callbacks.authorized`. */
  <Ctx = any>(callback: NextAuthCallback<Ctx>): (request: NextRequest, context: Ctx) => Promise<Response>
  /** The proxy (middleware) itself: `export { auth as proxy }`. */
  (request: NextRequest, event?: unknown): Promise<Response>
  /** `getServerSideProps` context. */
  (context: PagesContext): Promise<Session | null>
  /** Pages Router API route request and response. */
  (request: PagesRequest, response: PagesResponse): Promise<Session | null>
}

/** Builds the `auth` member of {@link NextAuth}'s result. */
export function createAuth(input: NextAuthConfigInput): AuthFunction {
  function auth(...args: unknown[]): unknown {
    const [first, second] = args
    if (first === undefined) return sessionOfCurrentRequest(input)
    if (typeof first === "function") {
      const callback = first as NextAuthCallback
      return (request: NextRequest, context: unknown) => guard(input, request, context, callback)
    }
    if (isWebRequest(first)) return guard(input, first, second, undefined)
    if (isPagesContext(first)) return pagesSession(input, first.req, first.res)
    return pagesSession(input, first as PagesRequest, second as PagesResponse | undefined)
  }
  return auth as AuthFunction
}

/**
 * Cookies come from `cookies()`, not the `Cookie` header: after a Server Action signs in or
 * calls `unstable_update`, the page it re-renders must see the cookie just set, and only
 * `cookies()` has it. Server Components cannot set cookies, so a refreshed cookie here is
 * left to the proxy or the client.
 */
async function sessionOfCurrentRequest(input: NextAuthConfigInput): Promise<Session | null> {
  const [incoming, jar] = await Promise.all([nextHeaders(), nextCookies()])
  const headers = new Headers(incoming)
  const cookie = jar.toString()
  if (cookie) headers.set("cookie", cookie)
  else headers.delete("cookie")
  const { session } = await readSession(headers, await prepareConfig(input, undefined))
  return session
}

/**
 * The proxy/route-handler path: session, then `callbacks.authorized`. A `Response` from it
 * is final; `false` sends the user to sign in, coming back here after; otherwise the wrapped
 * function runs (with `req.auth`) or the request continues. Unlike next-auth, `false` is
 * honoured even when a function is wrapped: an app that wrote the callback meant it.
 */
async function guard(input: NextAuthConfigInput, request: NextRequest, context: unknown, callback: NextAuthCallback | undefined): Promise<Response> {
  const config = await prepareConfig(input, request)
  let outcome: SessionResult
  try {
    outcome = await readSession(withUrlHost(request), config)
  } catch (error) {
    // A malformed Host or X-Forwarded-* header: core's own 400, not Next's 500 page.
    if (error instanceof InvalidRequest) return invalidRequestResponse(error)
    // No session means no decision: fail closed, but as "try again", not as "sign in".
    if (error instanceof ServiceUnavailable) return unavailable(error)
    throw error
  }
  const { session, setCookies } = outcome
  const authorized = config.handler.callbacks?.authorized
  const verdict = authorized ? await authorized({ request, auth: session }) : true

  let response: Response
  if (verdict instanceof Response) {
    response = verdict
  } else if (!verdict && !exempt(request, config)) {
    response = redirectToSignIn(request, config)
  } else if (callback) {
    const augmented = request as NextAuthRequest
    augmented.auth = session
    response = (await callback(augmented, context)) ?? NextResponse.next()
  } else {
    response = NextResponse.next()
  }
  // Server Components cannot write cookies, so the proxy is where a session refreshed by
  // the check above reaches the browser.
  return withSetCookies(response, setCookies)
}

/** The proxy's answer while the session store is down: `503` with `Retry-After`. */
function unavailable(error: ServiceUnavailable): Response {
  return new Response(JSON.stringify({ error: "ServiceUnavailable", message: "The service is temporarily unavailable. Please try again shortly." }), {
    status: 503,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", "Retry-After": String(error.retryAfter) },
  })
}

/** The request's headers, with `Host`/`X-Forwarded-Proto` from its URL where a caller left them out. */
function withUrlHost(request: NextRequest): Headers {
  if (request.headers.has("host")) return request.headers
  const url = new URL(request.url)
  const headers = new Headers(request.headers)
  headers.set("host", url.host)
  if (!headers.has("x-forwarded-proto")) headers.set("x-forwarded-proto", url.protocol.replace(":", ""))
  return headers
}

/**
 * Requests `authorized` cannot send away: the sign-in page itself (else a loop) and the auth
 * endpoints (else nobody could ever sign in).
 */
function exempt(request: NextRequest, config: PreparedConfig): boolean {
  const path = new URL(request.url).pathname
  const { basePath } = config.handler
  if (path === basePath || path.startsWith(`${basePath}/`)) return true
  return path === new URL(signInPage(config), "http://n").pathname
}

function signInPage(config: PreparedConfig): string {
  return config.handler.pages?.signIn ?? `${config.handler.basePath}/signin`
}

/** 302 to the sign-in page, with the current path (never a foreign origin) as `callbackUrl`. */
function redirectToSignIn(request: NextRequest, config: PreparedConfig): Response {
  const here = new URL(request.url)
  let origin: string
  try {
    origin = siteOrigin(here)
  } catch (error) {
    if (error instanceof InvalidRequest) return invalidRequestResponse(error)
    throw error
  }
  const target = new URL(signInPage(config), origin)
  target.searchParams.set("callbackUrl", here.pathname + here.search)
  return new Response(null, { status: 302, headers: { Location: target.href } })
}

/**
 * `AUTH_URL`'s origin when set: behind a proxy the request URL names the internal host.
 * Otherwise the request URL's origin, checked as core checks it (never a `null` origin).
 */
function siteOrigin(requestUrl: URL): string {
  const env = process.env.AUTH_URL || process.env.NEXTAUTH_URL
  if (env) {
    try {
      return new URL(env).origin
    } catch {
      // Reported by core with the variable named; fall back to the request.
    }
  }
  return originOfUrl(requestUrl)
}

/** Appends cookies, copying the response first when its headers are immutable (`Response.redirect`). */
function withSetCookies(response: Response, setCookies: string[]): Response {
  if (!setCookies.length) return response
  try {
    for (const cookie of setCookies) response.headers.append("set-cookie", cookie)
    return response
  } catch {
    const copy = new Response(response.body, response)
    for (const cookie of setCookies) copy.headers.append("set-cookie", cookie)
    return copy
  }
}

async function pagesSession(input: NextAuthConfigInput, req: PagesRequest, res: PagesResponse | undefined): Promise<Session | null> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.set(name, value)
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v)
  }
  if (!headers.has("x-forwarded-proto") && req.socket) {
    headers.set("x-forwarded-proto", (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http")
  }
  const { session, setCookies } = await readSession(headers, await prepareConfig(input, undefined))
  if (res && setCookies.length) {
    const existing = res.getHeader("set-cookie")
    const previous = existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)]
    res.setHeader("set-cookie", [...previous, ...setCookies])
  }
  return session
}

function isWebRequest(value: unknown): value is NextRequest {
  if (typeof Request !== "undefined" && value instanceof Request) return true
  const v = value as { url?: unknown; headers?: { get?: unknown } }
  return typeof v?.url === "string" && typeof v.headers?.get === "function"
}

function isPagesContext(value: unknown): value is PagesContext {
  const v = value as Partial<PagesContext>
  return typeof v === "object" && v !== null && typeof v.req === "object" && typeof v.res === "object"
}

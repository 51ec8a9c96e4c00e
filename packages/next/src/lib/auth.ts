import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http"
import type { Awaitable, Session } from "@portcullis/core"
import { InvalidRequest, ServiceUnavailable } from "@portcullis/core/errors"
import { invalidRequestResponse, originOfUrl, underBasePath } from "@portcullis/core/integration"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { NextRequest, NextResponse } from "next/server"
import { appFor, type App, type NextAuthConfigInput } from "./config.js"
import { readSession } from "./session.js"

/** A request seen by a function wrapped with `auth(fn)`: `req.auth` is its session or `null`. */
export type NextAuthRequest = NextRequest & { auth: Session | null }

/** A route handler or proxy function wrapped by `auth(fn)`. */
export type NextAuthCallback<Ctx = any> = (request: NextAuthRequest, context: Ctx) => Awaitable<Response | void | undefined>

/** What the Pages Router hands to API routes (`auth(req, res)`) and `getServerSideProps` (`auth(context)`). */
export type PagesRequest = { headers: IncomingHttpHeaders; socket?: IncomingMessage["socket"] }
export type PagesResponse = Pick<ServerResponse, "getHeader" | "setHeader">
export type PagesContext = { req: PagesRequest; res: PagesResponse }

/**
 * The session wherever Next.js code runs (see `docs/next.md`):
 *
 * @example
 * ```ts
 * const session = await auth()                                  // Server Components, Route Handlers, Server Actions
 * export { auth as proxy } from "@/auth"                        // proxy.ts: callbacks.authorized, refreshed cookie
 * export const GET = auth((req) => Response.json(req.auth))     // a wrapped route handler or proxy
 * const session = await auth(req, res)                          // Pages API routes; auth(context) in getServerSideProps
 * ```
 *
 * While the session store is down the session-returning forms throw `ServiceUnavailable`
 * and the proxy / wrapped forms answer `503` with `Retry-After`: an outage is never "signed out".
 */
export interface AuthFunction {
  (): Promise<Session | null>
  <Ctx = any>(callback: NextAuthCallback<Ctx>): (request: NextRequest, context: Ctx) => Promise<Response>
  (request: NextRequest, event?: unknown): Promise<Response>
  (context: PagesContext): Promise<Session | null>
  (request: PagesRequest, response: PagesResponse): Promise<Session | null>
}

/** Builds the `auth` member of `NextAuth`'s result. */
export function createAuth(input: NextAuthConfigInput): AuthFunction {
  function auth(first?: unknown, second?: unknown): unknown {
    if (first === undefined) return currentSession(input)
    if (typeof first === "function") return (request: Request, context: unknown) => guard(input, nextRequest(request), context, first as NextAuthCallback)
    if (first instanceof Request || (typeof (first as Request).url === "string" && typeof (first as Request).headers?.get === "function")) {
      return guard(input, nextRequest(first as Request), second, undefined)
    }
    const pages = first as Partial<PagesContext>
    if (typeof pages.req === "object" && typeof pages.res === "object") return pagesSession(input, pages.req, pages.res)
    return pagesSession(input, first as PagesRequest, second as PagesResponse | undefined)
  }
  return auth as AuthFunction
}

/**
 * Cookies from `cookies()`, not the `Cookie` header: a page re-rendered after a Server Action
 * signed in must see the cookie just set. Server Components cannot set cookies, so a
 * refreshed cookie is left to the proxy or the client.
 */
async function currentSession(input: NextAuthConfigInput): Promise<Session | null> {
  const [incoming, jar] = await Promise.all([nextHeaders(), nextCookies()])
  const headers = new Headers(incoming)
  headers.set("cookie", jar.toString())
  return (await readSession(headers, await appFor(input, undefined))).session
}

/**
 * Session, then `callbacks.authorized`: a `Response` from it is final, falsy sends the user
 * to sign in (never from the sign-in page or the auth endpoints), otherwise the wrapped
 * function runs or the request continues. The refreshed session cookie is forwarded.
 */
async function guard(input: NextAuthConfigInput, request: NextRequest, context: unknown, callback: NextAuthCallback | undefined): Promise<Response> {
  const app = await appFor(input, request)
  let outcome: Awaited<ReturnType<typeof readSession>>
  let origin: string
  try {
    outcome = await readSession(withUrlHost(request), app)
    // Behind a proxy the request URL names the internal host: AUTH_URL's origin wins.
    const env = process.env.AUTH_URL || process.env.NEXTAUTH_URL
    origin = (env && URL.canParse(env) && new URL(env).origin) || originOfUrl(request.url)
  } catch (error) {
    if (error instanceof InvalidRequest) return invalidRequestResponse(error)
    // No session means no decision: fail closed, as "try again", not as "sign in".
    if (error instanceof ServiceUnavailable) {
      const body = { error: "ServiceUnavailable", message: "The service is temporarily unavailable. Please try again shortly." }
      return Response.json(body, { status: 503, headers: { "Cache-Control": "no-store", "Retry-After": String(error.retryAfter) } })
    }
    throw error
  }
  const { session, setCookies } = outcome
  const authorized = app.config.callbacks?.authorized
  const verdict = authorized ? await authorized({ request, auth: session }) : true
  let response: Response
  if (verdict instanceof Response) response = verdict
  else if (!verdict && !exempt(request, app)) response = redirectToSignIn(request, app, origin)
  else if (callback) response = (await callback(Object.assign(request, { auth: session }), context)) ?? NextResponse.next()
  else response = NextResponse.next()
  try {
    for (const cookie of setCookies) response.headers.append("set-cookie", cookie)
  } catch {
    // Immutable headers (Response.redirect()): a copy takes them.
    response = new Response(response.body, response)
    for (const cookie of setCookies) response.headers.append("set-cookie", cookie)
  }
  return response
}

/** `request` as a `NextRequest` (`nextUrl`, `cookies`), as `authorized` and wrapped functions are typed to get, even when a caller passed a plain `Request`. */
function nextRequest(request: Request): NextRequest {
  // Next hands its own NextRequest (possibly another copy of the class than ours): keep it.
  if (request instanceof NextRequest || "nextUrl" in request) return request as NextRequest
  return new NextRequest(request)
}

/** The request's headers, with `Host`/`X-Forwarded-Proto` from its URL where a caller left them out. */
function withUrlHost(request: NextRequest): Headers {
  if (request.headers.has("host")) return request.headers
  const url = new URL(request.url)
  const headers = new Headers(request.headers)
  headers.set("host", url.host)
  if (!headers.has("x-forwarded-proto")) headers.set("x-forwarded-proto", url.protocol.slice(0, -1))
  return headers
}

const signInPage = (app: App) => app.config.pages?.signIn ?? `${app.config.basePath}/signin`

/** The sign-in page (else a loop) and the auth endpoints (else nobody could sign in). */
function exempt(request: NextRequest, app: App): boolean {
  const path = new URL(request.url).pathname
  return underBasePath(path, app.config.basePath) || path === new URL(signInPage(app), "http://n").pathname
}

/** 302 to the sign-in page, with the current path (never a foreign origin) as `callbackUrl`. */
function redirectToSignIn(request: NextRequest, app: App, origin: string): Response {
  const here = new URL(request.url)
  const target = new URL(signInPage(app), origin)
  target.searchParams.set("callbackUrl", here.pathname + here.search)
  return new Response(null, { status: 302, headers: { Location: target.href } })
}

async function pagesSession(input: NextAuthConfigInput, req: PagesRequest, res: PagesResponse | undefined): Promise<Session | null> {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v)
  }
  if (!headers.has("x-forwarded-proto") && req.socket) headers.set("x-forwarded-proto", (req.socket as { encrypted?: boolean }).encrypted ? "https" : "http")
  const { session, setCookies } = await readSession(headers, await appFor(input, undefined))
  if (res && setCookies.length) {
    const existing = res.getHeader("set-cookie")
    res.setHeader("set-cookie", [...(existing === undefined ? [] : Array.isArray(existing) ? existing : [String(existing)]), ...setCookies])
  }
  return session
}

/**
 * The `extension` action: a request under `<basePath>/<extension id>/…`, matched to one of
 * the extension's routes and checked the way core checks its own actions before the
 * handler runs — the route and method, then on a `POST` the origin and the CSRF token, then
 * the session (and step-up), then the rate limit. A refusal answers as the route says
 * (JSON with a status, or the themed page), is logged by cause like core's own, and never
 * carries a stack or a message from a store.
 * @module
 */
import { ExtensionRequestError } from "./errors.js"
import { AuthError, MethodNotAllowed, NotSignedIn, RateLimited, ServiceUnavailable, StepUpRequired, UnknownAction } from "../../errors.js"
import type { ResponseInternal } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { ensureCsrfToken, verifyCsrf } from "../csrf.js"
import { asOutage } from "../errors.js"
import { report, causeOfError } from "../report.js"
import { pageHeaders, privateJsonHeaders } from "../http/response.js"
import { renderDocument } from "../pages/layout.js"
import { html, type SafeHtml } from "../pages/html.js"
import { messagesOf, requestLocale } from "../i18n/index.js"
import { reauthenticateUrl } from "../step-up/gate.js"
import type { ExtensionRequest, ExtensionResponse, ExtensionSession } from "./api.js"
import { EXTENSION_POST_LIMIT, corsMethods, matchRoute, type ResolvedExtension } from "./resolve.js"
import { answersWithCors, preflight, withCors } from "./cors.js"
import { toolsFor } from "./tools.js"

/** Answers a request for one of the configuration's extensions. */
export async function extensionAction(ctx: RequestContext): Promise<ResponseInternal> {
  const { id, path } = ctx.extension!
  const extension = ctx.config.extensions.byId.get(id)!
  if (ctx.method === "OPTIONS") return preflightAction(ctx, extension, path)
  const match = matchRoute(extension, ctx.method, path)
  // Refusals too: a script denied the answer could not tell an invalid_grant from an outage.
  const cors = answersWithCors(extension, path, match)
  const answers = match && "route" in match ? (match.route.route.answers ?? "json") : ctx.method === "GET" && acceptsHtml(ctx) ? "page" : "json"
  try {
    if (!match) throw new UnknownAction(`The ${id} extension has no route /${path.join("/")}`)
    if ("allow" in match) {
      const error = new MethodNotAllowed(`${ctx.method} is not allowed here; use ${match.allow.join(", ")}`)
      ;(error as MethodNotAllowed & { allow?: string }).allow = match.allow.join(", ")
      throw error
    }
    const { route: compiled, params } = match
    const { route } = compiled
    // A route another party calls by design (an IdP's form post, a SCIM client) has no
    // session to protect: it is `access: "anyone"` (resolve.ts) and checks its caller itself.
    if (route.method === "POST" && route.from !== "anywhere") {
      // A client library sends the token as a header (a JSON body need not carry it).
      const header = ctx.headers.get("x-csrf-token")
      if (header && ctx.body?.csrfToken === undefined) ctx.body = { ...ctx.body, csrfToken: header }
      await verifyCsrf(ctx)
    }
    // Nor may it read one: its caller is another party, never the browser's user, so the
    // tools (the session, the account facet) see no cookies there — a browser that sends its
    // session cookie along (a cross-site post with SameSite=None cookies) lends it nothing.
    const tools = toolsFor(route.from === "anywhere" ? ({ ...ctx, cookies: {} } as RequestContext) : ctx, extension)
    let session: ExtensionSession | null = null
    if (route.access !== "anyone") session = await tools.requireSession(route.stepUp ? { stepUp: true } : undefined)
    const limit = route.rateLimit ?? (route.method === "POST" ? EXTENSION_POST_LIMIT : false)
    if (limit) await tools.rateLimit(compiled.name, limit, session?.userId)
    const { csrfToken: _token, ...body } = ctx.body ?? {}
    // One token per request: a browser without the cookie yet would otherwise be handed a
    // new one per form (a page's own, its banners', its account sections'), all but the last
    // refused, as only the last cookie set is kept.
    let token: Promise<string> | undefined
    const csrfToken = () => (token ??= ensureCsrfToken(ctx))
    const request: ExtensionRequest = {
      ...tools,
      locals: extension.locals,
      method: route.method,
      params,
      query: ctx.query,
      body,
      ...(ctx.form && { form: ctx.form }),
      csrfToken,
      accountSections: () => import("./account-sections.js").then((m) => m.accountSections(ctx, csrfToken)),
      page: (title, content, status) => ({ page: { title, body: content }, ...(status && { status }) }),
      signInUrl: (callbackUrl, options) => signInUrl(ctx, callbackUrl, options?.email),
      signIn: (identity) => import("./sign-in.js").then((m) => m.signInAs(ctx, extension, identity)),
      oidc: {
        authorize: (client, options) => import("./oidc.js").then((m) => m.authorize(ctx, client, options)),
        callback: (client) => import("./oidc.js").then((m) => m.callback(ctx, client)),
      },
      browser: {
        bind: (flow, value) => import("./browser-binding.js").then((m) => m.bind(ctx, id, flow, value)),
        bound: (flow) => import("./browser-binding.js").then((m) => m.bound(ctx, id, flow)),
      },
      headers: ctx.headers,
      url: ctx.url,
    }
    const answer = await route.handler(request)
    const internal = toInternal(ctx, "page" in answer ? await withBanners(ctx, answer, csrfToken) : answer)
    return cors ? withCors(internal) : internal
  } catch (thrown) {
    const refused = refusal(ctx, extension, thrown, answers)
    return cors ? withCors(refused) : refused
  }
}

/** A CORS preflight: answered for a path with `cors` routes, refused (without CORS headers) elsewhere. */
function preflightAction(ctx: RequestContext, extension: ResolvedExtension, path: string[]): ResponseInternal {
  try {
    const match = matchRoute(extension, "OPTIONS", path)
    if (!match) throw new UnknownAction(`The ${extension.extension.id} extension has no route /${path.join("/")}`)
    return preflight(corsMethods(extension, path), "allow" in match ? match.allow : [])
  } catch (thrown) {
    return refusal(ctx, extension, thrown, "json")
  }
}

/**
 * A page with the banners of the configuration's extensions atop it (an impersonation's),
 * each asked with the session as that extension sees it. A banner that fails is logged and
 * left out: a notice never costs the page.
 */
async function withBanners(ctx: RequestContext, answer: Extract<ExtensionResponse, { page: unknown }>, csrfToken: () => Promise<string>): Promise<ExtensionResponse> {
  const banners: SafeHtml[] = []
  for (const resolved of ctx.config.extensions.byId.values()) {
    const banner = resolved.extension.banner
    if (!banner) continue
    const tools = toolsFor(ctx, resolved)
    const session = await tools.session()
    if (!session) continue
    try {
      const shown = await banner({ session, locals: resolved.locals, t: tools.t, locale: tools.locale, authUrl: tools.authUrl, csrfToken })
      if (shown) banners.push(shown)
    } catch (error) {
      if (error instanceof ServiceUnavailable) throw error
      ctx.config.logger.error(error as Error)
    }
  }
  return banners.length ? { ...answer, page: { ...answer.page, body: html`${banners}${answer.page.body}` } } : answer
}

function acceptsHtml(ctx: RequestContext): boolean {
  return (ctx.headers.get("accept") ?? "").includes("text/html")
}

/** A route's answer as core's internal response. */
export function toInternal(ctx: RequestContext, answer: ExtensionResponse): ResponseInternal {
  if ("redirect" in answer) return { redirect: answer.redirect }
  if ("json" in answer) {
    const headers = answer.contentType || answer.headers ? { ...privateJsonHeaders, ...protocolHeaders(answer.headers), ...(answer.contentType && { "Content-Type": mediaType(answer.contentType, "json") }) } : privateJsonHeaders
    return { status: answer.status ?? 200, headers, body: answer.json as Record<string, unknown> }
  }
  if ("text" in answer) {
    return { status: answer.status ?? 200, headers: { ...privateJsonHeaders, ...protocolHeaders(answer.headers), ...documentHeaders, "Content-Type": mediaType(answer.contentType, "text") }, body: answer.text }
  }
  if ("empty" in answer) return { status: answer.status ?? 204, headers: { "Cache-Control": "no-store", ...protocolHeaders(answer.headers) } }
  return { status: answer.status ?? 200, headers: pageHeaders, body: page(ctx, answer.page.title, answer.page.body) }
}

/**
 * Headers only core or the server sets: cookies and security policy, and the message's
 * framing and hop-by-hop headers — an extension's `Transfer-Encoding` beside the server's
 * `Content-Length`, or a `Content-Length` on an empty answer, would desynchronise the
 * client or a proxy from the connection.
 */
const RESERVED = /^(?:set-cookie|content-security-policy|x-frame-options|strict-transport-security|content-type|content-length|transfer-encoding|connection|keep-alive|proxy-connection|upgrade|te|trailer)$/i

/**
 * An extension's protocol headers, without those core alone sets, and without any a server
 * cannot write: a name that is no HTTP token, a value with a control character or one past
 * Latin-1 (Node's `writeHead` throws on them, and a Web `Headers` on most).
 */
function protocolHeaders(headers: Record<string, string> | undefined): Record<string, string> {
  if (!headers) return {}
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (RESERVED.test(name) || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name) || typeof value !== "string" || /[^\t\x20-\x7e\x80-\xff]/.test(value)) continue
    out[name] = value
  }
  return out
}

/**
 * A `text` answer is a document of the auth origin that no page renderer escaped (metadata,
 * a key set): never sniffed into another type, and inert if a browser opens it (an SVG's
 * script, an XML stylesheet) — no script, no framing, a sandboxed origin.
 */
const documentHeaders: Record<string, string> = {
  "X-Content-Type-Options": "nosniff",
  "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; sandbox",
}

/**
 * A media type for `Content-Type`, with the charset a text type needs. A malformed one is
 * refused (a bug of the extension), and so is one of the wrong kind: a `json` answer is
 * `application/json` or `application/<x>+json` (its strings would be markup as `text/html`),
 * and a `text` answer is never HTML — pages go through `req.page`, which escapes and sets the
 * pages' security headers.
 */
function mediaType(value: string, kind: "json" | "text"): string {
  if (!/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/i.test(value)) throw new TypeError(`An extension answered with the malformed media type ${JSON.stringify(value.slice(0, 80))}`)
  const type = value.toLowerCase()
  if (kind === "json" && !/^application\/([a-z0-9.-]+\+)?json$/.test(type)) throw new TypeError(`An extension answered JSON as ${JSON.stringify(value)}, which is not a JSON media type`)
  if (kind === "text" && (type === "text/html" || type === "application/xhtml+xml")) throw new TypeError(`An extension answered text as ${value}: answer pages with req.page`)
  return /[+/](json|xml)$|^text\//i.test(value) ? `${value}; charset=utf-8` : value
}

/** A page in the configuration's theme and the request's language. */
export function page(ctx: RequestContext, title: string, body: SafeHtml): string {
  const locale = requestLocale(ctx)
  return renderDocument({ title, theme: ctx.config.theme, body, locale, messages: messagesOf(ctx.config.i18n, locale) })
}

/** The app's sign-in page (`pages.signIn`), else core's, with `callbackUrl` and the address to prefill. */
function signInUrl(ctx: RequestContext, callbackUrl: string, email?: string): string {
  const url = new URL(ctx.config.pages.signIn ?? `${ctx.authUrl}/signin`, ctx.origin)
  url.searchParams.set("callbackUrl", callbackUrl)
  if (email) url.searchParams.set("email", email)
  return url.href
}

/** The status a refusal answers with. */
function statusOf(error: unknown): number {
  if (error instanceof ExtensionRequestError) return error.status
  if (error instanceof RateLimited) return 429
  if (error instanceof ServiceUnavailable) return 503
  if (error instanceof NotSignedIn) return 401
  if (error instanceof UnknownAction) return 404
  if (error instanceof MethodNotAllowed) return 405
  if (error instanceof AuthError && error.type === "MissingCSRF") return 403
  if (error instanceof StepUpRequired) return 403
  return causeOfError(error) === "client" ? 400 : 500
}

/**
 * Answers a refusal: logged by cause (a client's refusal a rate-limited warning, an outage
 * through its store's tracker, only a bug with its stack), then JSON or the themed page.
 * The message shown is the error's own for a client's refusal (written for them), and a
 * generic sentence for an outage or a bug (whose message may name a table or a host).
 */
function refusal(ctx: RequestContext, extension: ResolvedExtension, thrown: unknown, answers: "json" | "page"): ResponseInternal {
  const error = asOutage(thrown)
  report(ctx.config, error)
  const status = statusOf(error)
  const type = error instanceof AuthError ? error.type : "ServerError"
  const cause = causeOfError(error)
  const message = cause === "client" || cause === "limited" ? (error as Error).message : status === 503 ? "The service is unavailable; try again shortly" : "Something went wrong"
  const headers: Record<string, string> = {}
  if (error instanceof RateLimited) headers["Retry-After"] = String(error.retryAfter)
  if (error instanceof ServiceUnavailable) headers["Retry-After"] = "5"
  const allow = (error as { allow?: string }).allow
  if (allow) headers.Allow = allow
  if (answers === "page" && ctx.method === "GET") {
    if (error instanceof NotSignedIn) {
      return { redirect: signInUrl(ctx, ctx.url.href) }
    }
    if (error instanceof StepUpRequired) return { redirect: reauthenticateUrl(ctx, ctx.url.href) }
    const tools = { t: (key: string) => extension.extension.messages?.[requestLocale(ctx)]?.[key] ?? extension.extension.messages?.en?.[key] }
    const title = tools.t("error.title") ?? "Error"
    const code = error instanceof ExtensionRequestError ? error.code : type
    const shown = tools.t(`error.${code}`) ?? message
    return { status, headers: { ...pageHeaders, ...headers }, body: page(ctx, title, html`<h1>${title}</h1><p role="alert">${shown}</p>`) }
  }
  const code = error instanceof ExtensionRequestError ? error.code : type
  return { status, headers: { ...privateJsonHeaders, ...headers }, body: { error: code, message } }
}

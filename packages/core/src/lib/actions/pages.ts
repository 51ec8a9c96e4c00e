import type { ResponseInternal } from "../../base-types.js"
import { providerUrls, resolveCallbackUrl, type RequestContext } from "../context.js"
import { pageHeaders } from "../http/response.js"
import { RETRY_AFTER_SECONDS } from "../errors.js"
import { InvalidConfig } from "../../errors.js"
import { pageBase } from "./page-base.js"
import { renderError, renderSignOut, renderVerifyRequest, type PageProvider } from "../pages/index.js"

/** Error codes are identifiers; anything else in `?error=` is shown as the generic case. */
function errorCode(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z]{1,64}$/.test(value) ? value : value === undefined ? undefined : "Default"
}

/** A custom page URL with `params` added, or `undefined` when the page is the current one (no loops). */
function customPage(ctx: RequestContext, path: string | undefined, params: Record<string, string | undefined>): string | undefined {
  if (!path) return undefined
  const url = new URL(path, ctx.origin)
  if (url.origin === ctx.origin && url.pathname === ctx.url.pathname) return undefined
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v)
  return url.href
}

/** The longest address the identifier step takes (RFC 5321's path limit, as the email kinds). */
const MAX_ADDRESS = 320

/**
 * `GET /signin`; with `identified`, the identifier-first layout's second step (the POST of
 * its first step, CSRF-checked by the caller). The address is only shown and carried: it is
 * never looked up, so the answer is the same for every address.
 */
export async function signinPage(ctx: RequestContext, identified?: string): Promise<ResponseInternal> {
  const callbackUrl = await resolveCallbackUrl(ctx)
  const error = errorCode(ctx.query.error)
  const code = typeof ctx.query.code === "string" && /^[\w.-]{1,64}$/.test(ctx.query.code) ? ctx.query.code : undefined
  const custom = customPage(ctx, ctx.config.pages.signIn, { callbackUrl, error, code })
  if (custom) return { redirect: custom }
  const providers: PageProvider[] = ctx.config.providers.map((p) => ({
    id: p.id,
    name: p.name,
    type: p.type,
    ...providerUrls(ctx, p),
    style: (p as { style?: PageProvider["style"] }).style,
    credentials: p.type === "credentials" ? p.credentials : undefined,
    formFields: p.type === "webauthn" ? p.formFields : undefined,
    enableConditionalUI: p.type === "webauthn" ? p.enableConditionalUI : undefined,
  }))
  const address = identified?.trim()
  // An empty or overlong address gets the first step again with a hint, as a client error.
  const invalidIdentifier = address !== undefined && (address === "" || address.length > MAX_ADDRESS || /\s/.test(address))
  const email = invalidIdentifier ? address.slice(0, MAX_ADDRESS) : typeof ctx.query.email === "string" ? ctx.query.email.slice(0, MAX_ADDRESS) : undefined
  const scripts = await ctx.config.kinds.pageScripts(providers)
  const routing = ctx.config.extensions.routing
  const route = address !== undefined && !invalidIdentifier && routing.length ? await routeOf(ctx, address) : undefined
  const page = { ...(await pageBase(ctx)), providers, callbackUrl, error, code, email, scripts, ...(routing.length && { routed: true }), ...(route && { route }) }
  // Loaded on first use: both layouts and their forms stay out of the startup path (the
  // error page, which startup needs, shares only the document shell with them).
  const { renderSignIn } = await import("../pages/signin.js")
  const html = renderSignIn(invalidIdentifier ? { ...page, invalidIdentifier } : address !== undefined ? { ...page, identified: address } : page)
  return { ...(invalidIdentifier ? { status: 400 } : {}), headers: pageHeaders, body: html }
}

/**
 * The first extension's way in for `address` (`Extension.signInRoute`): an organization's SSO.
 * Asked with the extension's sentences; a failure (its store down) fails the step as any
 * action's outage does (the error page, a 503).
 */
async function routeOf(ctx: RequestContext, address: string): Promise<{ action: string; label: string; only: boolean } | undefined> {
  for (const resolved of ctx.config.extensions.routing) {
    const tools = ctx.config.extensions.toolsFor!(ctx as never, resolved)
    const route = await resolved.extension.signInRoute!({ email: address, locals: resolved.locals, authUrl: ctx.authUrl, t: tools.t })
    if (route) return { action: ownAction(ctx, resolved.extension.id, String(route.action)), label: String(route.label), only: route.only === true }
  }
  return undefined
}

/**
 * The route's `action`, which must be one of the extension's own routes on this site: the form
 * posts the CSRF token and the address, which are for this site's routes only.
 */
function ownAction(ctx: RequestContext, id: string, action: string): string {
  const root = `${ctx.authUrl}/${id}`
  let url: URL | undefined
  try {
    url = new URL(action)
  } catch {
    url = undefined
  }
  const target = url && `${url.origin}${url.pathname}`
  if (!url || url.origin !== ctx.origin || (target !== root && !target!.startsWith(`${root}/`))) {
    throw new InvalidConfig(`The ${id} extension's signInRoute named the action ${JSON.stringify(action.slice(0, 200))}, which is not one of its routes (${root}/…)`)
  }
  return url.href
}

/** `GET /signout`. */
export async function signoutPage(ctx: RequestContext): Promise<ResponseInternal> {
  // As Auth.js: a custom sign-out page gets no parameters; a `callbackUrl` the request
  // carried is remembered in the callback-url cookie (dispatch) for the sign-out POST.
  const custom = customPage(ctx, ctx.config.pages.signOut, {})
  if (custom) return { redirect: custom }
  const callbackUrl = await resolveCallbackUrl(ctx)
  return { headers: pageHeaders, body: renderSignOut({ ...(await pageBase(ctx)), callbackUrl }) }
}

/** `GET /error`. */
export async function errorPage(ctx: RequestContext): Promise<ResponseInternal> {
  const error = errorCode(ctx.query.error)
  const custom = customPage(ctx, ctx.config.pages.error, { error })
  if (custom) return { redirect: custom }
  const { status, html } = renderError({ ...(await pageBase(ctx)), error })
  // A 503 page tells crawlers and retrying clients the condition is temporary.
  return { status, headers: status === 503 ? { ...pageHeaders, "Retry-After": String(RETRY_AFTER_SECONDS) } : pageHeaders, body: html }
}

/** `GET /verify-request`. */
export async function verifyRequestPage(ctx: RequestContext): Promise<ResponseInternal> {
  const custom = customPage(ctx, ctx.config.pages.verifyRequest, Object.fromEntries(ctx.url.searchParams))
  if (custom) return { redirect: custom }
  const provider = typeof ctx.query.provider === "string" ? ctx.query.provider : undefined
  return { headers: pageHeaders, body: renderVerifyRequest({ ...(await pageBase(ctx)), provider }) }
}

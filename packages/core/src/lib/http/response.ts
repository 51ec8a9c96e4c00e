import type { Cookie, ResponseInternal } from "../../base-types.js"
import { serializeCookie } from "../cookies.js"

export const noStore = "private, no-cache, no-store, max-age=0"

/**
 * Headers every built-in page sends: no framing, no sniffing, no caching. `form-action`
 * also governs the redirects a form post leads to (a sign-in button → the provider), so it
 * allows any https origin, plus plain http on loopback for local providers in development
 * (`localhost` and `127.0.0.1`: a bracketed IPv6 host is not valid CSP source syntax, and
 * Chromium drops the token with a console error).
 */
export const pageHeaders: Record<string, string> = {
  "Content-Type": "text/html; charset=utf-8",
  "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; script-src 'self' 'unsafe-inline'; connect-src 'self'; form-action 'self' https: http://localhost:* http://127.0.0.1:*; frame-ancestors 'none'; base-uri 'none'",
  "X-Frame-Options": "DENY",
  "X-Content-Type-Options": "nosniff",
  // Not "no-referrer": with it, browsers send `Origin: null` on the page's own form posts,
  // which the CSRF origin check (rightly) refuses. "same-origin" leaks nothing off-site.
  "Referrer-Policy": "same-origin",
  "Cache-Control": noStore,
  // The language of a page follows the request's Accept-Language (docs/i18n.md).
  Vary: "Accept-Language",
}

/**
 * Headers of personalised JSON (session, CSRF token): never cached by a shared cache.
 * `Cache-Control`, `Expires` and `Pragma` are exactly Auth.js's; `Vary: Cookie` is ours.
 */
export const privateJsonHeaders: Record<string, string> = {
  "Content-Type": "application/json",
  "Cache-Control": "private, no-cache, no-store",
  Pragma: "no-cache",
  Expires: "0",
  Vary: "Cookie",
}

/**
 * Respond: the internal response becomes a Web `Response`. Redirects are 302 (never
 * 307/308, which would re-post a form body) and leak no referrer. With
 * `X-Auth-Return-Redirect`, a redirect becomes `200 {"url": …}` for fetch-based clients.
 */
export function toResponse(internal: ResponseInternal, cookies: Cookie[], returnRedirect: boolean): Response {
  // The common answer (a JSON body, its headers as a plain object, no cookies) needs no
  // Headers object of our own: Response builds one anyway.
  if (!internal.redirect && !cookies.length && internal.body !== undefined && isPlainJsonHeaders(internal.headers)) {
    const body = internal.body
    return new Response(JSON.stringify(body), { status: internal.status ?? 200, headers: internal.headers })
  }
  const headers = new Headers(internal.headers)
  for (const c of cookies) headers.append("Set-Cookie", serializeCookie(c.name, c.value, c.options))
  if (internal.redirect) {
    headers.set("Cache-Control", noStore)
    headers.set("Referrer-Policy", "no-referrer")
    if (returnRedirect) {
      headers.set("Content-Type", "application/json")
      return new Response(JSON.stringify({ url: internal.redirect }), { status: 200, headers })
    }
    headers.set("Location", internal.redirect)
    return new Response(null, { status: 302, headers })
  }
  const body = internal.body
  let payload: string | null
  if (body === undefined) payload = null
  else if (typeof body === "string" && !isJson(headers)) payload = body
  else {
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json")
    payload = JSON.stringify(body)
  }
  return new Response(payload, { status: internal.status ?? 200, headers })
}

function isPlainJsonHeaders(headers: ResponseInternal["headers"]): headers is Record<string, string> {
  if (!headers || headers instanceof Headers || Array.isArray(headers)) return false
  return (headers as Record<string, string>)["Content-Type"] === "application/json"
}

function isJson(headers: Headers) {
  return (headers.get("Content-Type") ?? "").includes("application/json")
}


import { MissingCSRF } from "../errors.js"
import type { RequestContext } from "./context.js"
import { timingSafeEqual, randomHex, sha256Hex } from "./crypto.js"

/**
 * Double-submit CSRF protection in Auth.js's wire format: the cookie holds
 * `<token>|<sha256(token + secret)>`, and a form posts `csrfToken=<token>`. The hash makes
 * the cookie unforgeable without the secret; the cookie is `__Host-` prefixed on https.
 *
 * On top of Auth.js, a POST whose `Origin` is another site, or that the browser marks
 * `Sec-Fetch-Site: cross-site`, is refused even with a valid token.
 */
async function readToken(ctx: RequestContext): Promise<string | undefined> {
  const value = ctx.cookies[ctx.cookieOptions.csrfToken.name]
  if (!value) return undefined
  const bar = value.indexOf("|")
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent. Without this line a cookie with no "|" compares its whole value, and "|<hash>" an empty token's hash, with sha256(token + secret): neither matches without the secret, and an empty token is refused as no token by every caller anyway.
  if (bar <= 0) return undefined
  const token = value.slice(0, bar)
  const hash = value.slice(bar + 1)
  const expected = await sha256Hex(`${token}${ctx.config.secrets.join(",")}`)
  return timingSafeEqual(hash, expected) ? token : undefined
}

/** The browser's CSRF token, minting one (and its cookie) when it has none. */
export async function ensureCsrfToken(ctx: RequestContext): Promise<string> {
  const existing = await readToken(ctx)
  if (existing) return existing
  const token = randomHex(32)
  const hash = await sha256Hex(`${token}${ctx.config.secrets.join(",")}`)
  ctx.setCookies.push({ name: ctx.cookieOptions.csrfToken.name, value: `${token}|${hash}`, options: ctx.cookieOptions.csrfToken.options })
  return token
}

/** Throws {@link MissingCSRF} unless the POST carries the token its cookie vouches for. */
export async function verifyCsrf(ctx: RequestContext): Promise<void> {
  if (ctx.skipCSRF) return
  refuseCrossSite(ctx)
  const sent = ctx.body?.csrfToken
  const token = await readToken(ctx)
  if (ctx.method !== "POST" || typeof sent !== "string" || !token || !timingSafeEqual(sent, token)) {
    throw new MissingCSRF("CSRF token missing or wrong. Send csrfToken from GET /csrf in the body.")
  }
}

/**
 * Throws {@link MissingCSRF} for a request whose `Origin` is another site, or that the
 * browser marks `Sec-Fetch-Site: cross-site`. Part of {@link verifyCsrf}; on its own for
 * changes whose token check a framework action skips (session management), where the
 * origin must still be the site's.
 */
export function refuseCrossSite(ctx: RequestContext): void {
  const origin = ctx.headers.get("origin")
  if (origin !== null && origin !== ctx.origin) throw new MissingCSRF("The request comes from another origin")
  if (ctx.headers.get("sec-fetch-site") === "cross-site") throw new MissingCSRF("The browser marked the request cross-site")
}

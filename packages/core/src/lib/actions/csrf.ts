import type { ResponseInternal } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { expireCookie } from "../cookies.js"
import { ensureCsrfToken } from "../csrf.js"
import { privateJsonHeaders } from "../http/response.js"

/** `GET /csrf`: the token for the double-submit check; 404 when CSRF protection is off. */
export async function csrf(ctx: RequestContext): Promise<ResponseInternal> {
  if (ctx.skipCSRF) {
    ctx.config.logger.warn("csrf-disabled")
    const { name, options } = ctx.cookieOptions.csrfToken
    return { status: 404, cookies: [expireCookie(name, options)], headers: privateJsonHeaders }
  }
  const csrfToken = await ensureCsrfToken(ctx)
  return { headers: privateJsonHeaders, body: { csrfToken } }
}

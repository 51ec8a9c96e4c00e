import type { ResponseInternal } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { privateJsonHeaders } from "../http/response.js"
import { sessionStrategy } from "../session/index.js"

/**
 * `GET /session` returns the session or `null`; `POST /session` (CSRF-checked) passes the
 * body's `data` to the `jwt`/`session` callbacks with `trigger: "update"`.
 */
export async function session(ctx: RequestContext): Promise<ResponseInternal> {
  let update: { data: unknown } | undefined
  if (ctx.method === "POST") {
    await verifyCsrf(ctx)
    await ctx.config.rateLimit?.checkAddress("sessionUpdate", ctx.clientAddress)
    update = { data: ctx.body?.data }
  }
  const result = await sessionStrategy(ctx).read(ctx, update)
  // Extensions' fields (organizations' active one): only configurations with such extensions pay for them.
  if (result.body && ctx.config.extensions.inSession.length) await (await import("../extensions/fields.js")).addExtensionFields(ctx, result)
  return { ...result, headers: privateJsonHeaders }
}

/**
 * Extensions in the session: the fields they add to a session answer (`session.fields`),
 * read on every full check so a change since sign-in (a removal) shows at once, and the
 * claims they keep in a JWT session token (`session.claims`), computed at sign-in and on
 * `update()` within each extension's byte budget.
 * @module
 */
import { AdapterError, InvalidConfig, ServiceUnavailable } from "../../errors.js"
import type { Session } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { currentSession } from "../step-up/session.js"
import type { Json } from "./api.js"
import { sessionKey } from "./tools.js"

import { EXTENSION_CLAIM } from "./claims.js"

/**
 * Adds each extension's fields to `session` (under the extension's id). A store failure of
 * an extension is an outage (503, never "signed out"); any other failure of its code is
 * logged and its field left out — it never ends the session.
 */
export async function addExtensionFields(ctx: RequestContext, session: Session): Promise<void> {
  const hooks = ctx.config.extensions.inSession.filter((e) => e.extension.session?.fields)
  if (!hooks.length) return
  const current = await currentSession(ctx)
  if (!current) return
  const claims = await tokenClaims(ctx)
  for (const { extension, locals } of hooks) {
    try {
      const value = await extension.session!.fields!({
        session: { userId: current.userId, ...(current.email && { email: current.email }), key: await sessionKey(extension.id, current.userId, current.id), expires: new Date(session.expires) },
        claims: claims?.[extension.id],
        locals,
      })
      if (value !== undefined) (session as unknown as Record<string, unknown>)[extension.id] = value
    } catch (error) {
      if (error instanceof AdapterError || error instanceof ServiceUnavailable) throw error
      ctx.config.logger.error(new InvalidConfig(`The ${extension.id} extension's session fields failed`, error as Error))
    }
  }
}

/** The extension claims of the request's JWT session, when it has any. */
async function tokenClaims(ctx: RequestContext): Promise<Record<string, Json> | undefined> {
  if (ctx.config.session.strategy !== "jwt" || !ctx.config.extensions.inSession.some((e) => e.extension.session?.claims)) return undefined
  const { openToken } = await import("../session/jwt.js")
  const { readChunked } = await import("../cookies.js")
  const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
  const payload = raw ? (await openToken(ctx, raw).catch(() => null))?.payload : undefined
  const claims = payload?.[EXTENSION_CLAIM]
  return claims && typeof claims === "object" && !Array.isArray(claims) ? (claims as Record<string, Json>) : undefined
}

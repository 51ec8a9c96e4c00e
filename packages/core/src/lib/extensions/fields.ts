/**
 * Extensions in the session: the fields they add to a session answer (`session.fields`),
 * read on every full check so a change since sign-in (a removal) shows at once, and the
 * claims they keep in a JWT session token (`session.claims`), computed at sign-in and on
 * `update()` within each extension's byte budget.
 * @module
 */
import { AdapterError, InvalidConfig, ServiceUnavailable } from "../../errors.js"
import type { Cookie, ResponseInternal, Session } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { currentSession, type StepUpSession } from "../step-up/session.js"
import { audit as auditEvent } from "../audit/index.js"
import type { ExtensionAuditInput, Json } from "./api.js"
import { sessionKey } from "./session-key.js"

import { EXTENSION_CLAIM } from "./claims.js"

/**
 * Asks the extensions with a `valid` hook whether the request's session may go on, then adds
 * each extension's fields to the answer's session (under the extension's id). A session an
 * extension refuses is ended — its row or registry entry deleted, its cookie cleared — and
 * answered as none. A store failure of an extension is an outage (503, never "signed out");
 * any other failure of its fields is logged and its field left out — it never ends the
 * session. (A `valid` hook that throws is an outage too: refusing is its job.)
 */
export async function addExtensionFields(ctx: RequestContext, result: ResponseInternal): Promise<void> {
  const session = result.body as Session | null | undefined
  if (!session) return
  const current = await currentSession(ctx)
  if (!current) return
  if (!(await sessionAllowed(ctx, current))) {
    result.body = null as never
    result.cookies = [...(result.cookies ?? []), ...(await endSession(ctx))]
    return
  }
  const hooks = ctx.config.extensions.inSession.filter((e) => e.extension.session?.fields)
  if (!hooks.length) return
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

/**
 * Whether every extension with a `valid` hook lets `current` go on. Asked on every full
 * session check and every extension call that reads the session (`tools.ts`), so a limit an
 * extension set (an impersonation's end) holds however active the session is.
 */
export async function sessionAllowed(ctx: RequestContext, current: StepUpSession): Promise<boolean> {
  for (const { extension, locals } of ctx.config.extensions.inSession) {
    const valid = extension.session?.valid
    if (!valid) continue
    const session = { userId: current.userId, ...(current.email && { email: current.email }), key: await sessionKey(extension.id, current.userId, current.id), expires: new Date(Date.now() + ctx.config.session.maxAge * 1000) }
    const audit = (event: ExtensionAuditInput) => auditEvent(ctx, { ...event, type: `${extension.id}.${event.type}` as const })
    if (!(await valid({ session, locals, audit }))) return false
  }
  return true
}

/** Ends the request's session as a sign-out does (row or registry entry, then the cookie). */
export async function endSession(ctx: RequestContext): Promise<Cookie[]> {
  const { sessionStrategy } = await import("../session/index.js")
  return sessionStrategy(ctx).destroy(ctx)
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

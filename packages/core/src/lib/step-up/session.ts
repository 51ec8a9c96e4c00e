/**
 * Which session a request (or the cookies a sign-in just set) is: the user and the id the
 * step-up mark of that session is kept under. Database sessions are named by the public id
 * of their stored key (what the session list shows); JWT sessions by their registry id, else
 * the `pcl_su` claim minted at sign-in.
 * @module
 */
import type { AdapterUser } from "../../adapters.js"
import type { Cookie } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { readChunked } from "../cookies.js"
import { store } from "../config/stores.js"
import { lookup, pastAbsoluteLifetime, storageKey } from "../session/database.js"
import { openToken, stillValid } from "../session/jwt.js"
import { publicId } from "../session/manage.js"
import { stepUpIdOf } from "../session/registry.js"
import { checkUnverifiedMark } from "../session/unverified-mark.js"

/** A signed-in session as step-up sees it. */
export interface StepUpSession {
  userId: string
  /**
   * The session's id, `undefined` for a JWT issued before step-up existed (or by Auth.js):
   * such a session cannot be marked; a new sign-in mints one.
   */
  id: string | undefined
  /** The user, when the session's lookup brought it along (database sessions). */
  user?: AdapterUser
  /** The email the session names (the user's, or a JWT's `email` claim). */
  email?: string
}

/**
 * The valid session of the request, or `null` (signed out, expired, revoked). With `fresh`,
 * a JWT session is confirmed with the registry now rather than from this instance's last
 * confirmation (`session.revocationCheckInterval`): the gate of a sensitive action must see
 * a sign-out or revocation made on another instance at once.
 */
export async function currentSession(ctx: RequestContext, options: { fresh?: boolean } = {}): Promise<StepUpSession | null> {
  const { name } = ctx.cookieOptions.sessionToken
  if (ctx.config.session.strategy === "database") {
    const token = ctx.cookies[name]
    if (!token) return null
    const key = await storageKey(ctx.config, token)
    const found = await lookup(ctx.config, store(ctx.config.stores, "database"), key, false)
    const now = Date.now()
    if (!found || found.session.expires.getTime() <= now || pastAbsoluteLifetime(ctx, found.session, now)) return null
    return { userId: found.user.id, id: await publicId(key), user: found.user, ...(found.user.email && { email: found.user.email }) }
  }
  const raw = readChunked(ctx.cookies, name)
  const payload = raw ? (await openToken(ctx, raw).catch(() => null))?.payload : undefined
  if (!payload || typeof payload.sub !== "string" || !payload.sub) return null
  if ((ctx.config.sessionRegistry || ctx.config.session.absoluteMaxAge !== undefined) && !(await stillValid(ctx, payload, options.fresh))) return null
  // T67: a revoked pre-verification session is no session here either.
  const mark = await checkUnverifiedMark(ctx, payload)
  if (mark !== "valid" && mark !== "verified") return null
  return { userId: payload.sub, id: stepUpIdOf(payload), ...(typeof payload.email === "string" && payload.email && { email: payload.email }) }
}

/**
 * The session the cookies of a sign-in just created, for marking it fresh: read back from
 * those cookies (nothing to validate, this request wrote them). `null` when they hold none.
 */
export async function sessionOfCookies(ctx: RequestContext, cookies: Cookie[], userId: string): Promise<StepUpSession | null> {
  const { name } = ctx.cookieOptions.sessionToken
  const jar: Record<string, string> = {}
  for (const cookie of cookies) if (cookie.value) jar[cookie.name] = cookie.value
  if (ctx.config.session.strategy === "database") {
    const token = jar[name]
    return token ? { userId, id: await publicId(await storageKey(ctx.config, token)) } : null
  }
  const raw = readChunked(jar, name)
  const payload = raw ? (await openToken(ctx, raw).catch(() => null))?.payload : undefined
  if (!payload || typeof payload.sub !== "string") return null
  return { userId: payload.sub, id: stepUpIdOf(payload) }
}

/**
 * Impersonation, core's half: a session for the target made by the configuration's own
 * strategy (a database row or a JWT, registered like any other), and the admin's own session
 * kept aside, sealed, until it ends. The calling extension decides who may impersonate whom
 * and keeps the record of it (the time limit, the banner); core makes and swaps the sessions.
 *
 * The admin's session token travels in a JWE under core's keys, derived with this cookie's
 * name as salt — it can pass for no other cookie, and a tampered one does not open. It is
 * bound to the impersonated session (the extension's key of it) and to the admin's id: ending
 * restores that admin's session, only when it is still valid, and never another's.
 * @module
 */
import type { Cookie } from "../../../base-types.js"
import { NotSignedIn } from "../../../errors.js"
import type { RequestContext } from "../../context.js"
import { clearChunked, readChunked, writeChunked } from "../../cookies.js"
import { decodeWith, encodeWith } from "../../jwt/codec.js"
import { sessionStrategy } from "../../session/index.js"
import { currentSession, sessionOfCookies } from "../../step-up/session.js"
import { ExtensionRequestError } from "../errors.js"
import { endSession } from "../fields.js"
import { sessionKey } from "../session-key.js"
import type { AdminImpersonation, AdminImpersonationEnd } from "../admin-api.js"

/** The cookie that keeps the admin's own session while they impersonate. */
export function impersonatorCookie(ctx: RequestContext): { name: string; options: Cookie["options"] } {
  const { name, options } = ctx.cookieOptions.sessionToken
  return { name: /session-token$/.test(name) ? name.replace(/session-token$/, "impersonator") : `${name}-impersonator`, options }
}

interface Sealed {
  /** The admin's user id. */
  aid: string
  /** The admin's session token, as their cookie held it. */
  tok: string
  /** The calling extension's key of the impersonated session. */
  key: string
}

/**
 * Starts a session for `userId` in place of the request's (an admin's), which is sealed into
 * the impersonator cookie. `record(key)` runs once the new session exists and before any
 * cookie is set: if it throws, no cookie changes and the new session is held by nobody.
 */
export async function impersonate(ctx: RequestContext, extensionId: string, input: AdminImpersonation): Promise<{ key: string; expires: Date; cookies: Cookie[] }> {
  const admin = await currentSession(ctx, { fresh: true })
  if (!admin) throw new NotSignedIn("No valid session in this request")
  const { name } = ctx.cookieOptions.sessionToken
  const token = ctx.config.session.strategy === "database" ? ctx.cookies[name] : readChunked(ctx.cookies, name)
  if (!token) throw new NotSignedIn("No valid session in this request")
  const user = typeof input.userId === "string" && input.userId && ctx.config.adapter?.getUser ? await ctx.config.adapter.getUser(input.userId) : null
  if (!user) throw new ExtensionRequestError("not-found", "No such user", 404)
  // The target's session, made as a sign-in makes one (the jwt/session callbacks, the registry,
  // the row) but with no step-up mark: the admin proved no factor of the target's.
  // Made as if the browser held no session: a sign-in ends the session it arrived with (no
  // fixation), and this one must be kept — sealed below — for the way back.
  const withoutSession = Object.fromEntries(Object.entries(ctx.cookies).filter(([n]) => n !== name && !n.startsWith(`${name}.`)))
  const made = await sessionStrategy(ctx).create({ ...ctx, cookies: withoutSession } as RequestContext, { user, account: null })
  // The admin's token may have been chunked where the target's is not: no piece of it stays.
  const written = new Set(made.map((c) => c.name))
  const cookies = [...made, ...clearChunked(ctx.cookies, name, ctx.cookieOptions.sessionToken.options).filter((c) => !written.has(c.name))]
  const target = await sessionOfCookies(ctx, made, user.id)
  const key = await sessionKey(extensionId, user.id, target?.id)
  const expires = new Date(Date.now() + ctx.config.session.maxAge * 1000)
  await input.record(key, expires)
  const cookie = impersonatorCookie(ctx)
  const maxAge = ctx.config.session.maxAge
  const sealed = await encodeWith(ctx.config.keys, { token: { aid: admin.userId, tok: token, key } satisfies Sealed, secret: ctx.config.secrets, salt: cookie.name, maxAge })
  const set = [...cookies, ...writeChunked(ctx.cookies, cookie.name, sealed, { ...cookie.options, maxAge, expires })]
  ctx.setCookies.push(...set)
  return { key, expires, cookies: set }
}

/**
 * Ends the request's (impersonated) session and gives the admin theirs back when the
 * impersonator cookie opens, names this session and holds a session of that admin that is
 * still valid. Anything else — no cookie, a tampered one, one of another impersonation, an
 * admin session ended meanwhile — restores nothing: the browser is signed out.
 */
export async function endImpersonation(ctx: RequestContext, extensionId: string): Promise<AdminImpersonationEnd> {
  const cookie = impersonatorCookie(ctx)
  const raw = readChunked(ctx.cookies, cookie.name)
  const opened = raw ? await decodeWith<Partial<Sealed>>(ctx.config.keys, { token: raw, secret: ctx.config.secrets, salt: cookie.name }).catch(() => null) : null
  const sealed = opened && typeof opened.aid === "string" && typeof opened.tok === "string" && typeof opened.key === "string" ? (opened as Sealed) : null
  const current = await currentSession(ctx)
  const bound = !!sealed && (!current || (await sessionKey(extensionId, current.userId, current.id)) === sealed.key)
  const out: Cookie[] = []
  if (current) out.push(...(await endSession(ctx)))
  out.push(...clearChunked(ctx.cookies, cookie.name, cookie.options))
  let restored: string | null = null
  if (sealed && bound) {
    const { name, options } = ctx.cookieOptions.sessionToken
    // The admin's token, checked as any request's would be (expired, revoked, rotated away).
    const shadow = { ...ctx, cookies: { [name]: sealed.tok } } as RequestContext
    const admin = await currentSession(shadow, { fresh: true })
    if (admin?.userId === sealed.aid) {
      restored = sealed.aid
      const maxAge = ctx.config.session.maxAge
      out.push(...writeChunked(ctx.cookies, name, sealed.tok, { ...options, maxAge, expires: new Date(Date.now() + maxAge * 1000) }))
    }
  }
  ctx.setCookies.push(...out)
  return { impersonator: sealed && bound ? sealed.aid : null, restored, cookies: out }
}

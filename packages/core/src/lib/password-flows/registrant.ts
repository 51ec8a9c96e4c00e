/**
 * The registrant's browser: a sealed cookie set by a sign-up that ties the browser to the
 * unverified user it made and to that user's verification link. Confirming the link from
 * this browser keeps the user and its password; confirming it anywhere else is a first
 * verification by someone who may not be the registrant, so the user is replaced (T67).
 *
 * Without it, whoever signed up with an address he does not own — with his own password —
 * got the account the moment its owner (or her mail scanner) opened the link.
 * @module
 */
import type { Cookie } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { expireCookie } from "../cookies.js"
import { randomHex, sha256Hex, timingSafeEqual } from "../crypto.js"
import { decodeWith, encodeWith } from "../jwt/codec.js"

/**
 * What the cookie says: a digest of the user's id and the stored form of its link's token.
 * Fixed length, and only a digest, so the cookie names neither.
 */
function markOf(userId: string, hashed: string): Promise<string> {
  return sha256Hex(`portcullis-password-signup:${userId}:${hashed}`)
}

/**
 * The cookie for a sign-up: bound to `made` when it created a user, or a random mark when
 * the address already had one. Both are set, with the same name, size and lifetime, so the
 * answer still says nothing about the address.
 */
export async function registrantCookie(ctx: RequestContext, made: { userId: string; hashed: string } | null, maxAge: number): Promise<Cookie> {
  const cookie = ctx.cookieOptions.passwordSignup
  const mark = made ? await markOf(made.userId, made.hashed) : randomHex(32)
  const value = await encodeWith(ctx.config.keys, { token: { mark }, secret: ctx.config.secrets, salt: cookie.name, maxAge })
  return { name: cookie.name, value, options: { ...cookie.options, maxAge, expires: new Date(Date.now() + maxAge * 1000) } }
}

/** Whether this request comes from the browser that signed `userId` up and got the link stored as `hashed`. */
export async function fromRegistrant(ctx: RequestContext, userId: string, hashed: string): Promise<boolean> {
  const cookie = ctx.cookieOptions.passwordSignup
  const raw = ctx.cookies[cookie.name]
  if (!raw) return false
  const payload = await decodeWith<{ mark?: unknown }>(ctx.config.keys, { token: raw, secret: ctx.config.secrets, salt: cookie.name }).catch(() => null)
  return typeof payload?.mark === "string" && timingSafeEqual(payload.mark, await markOf(userId, hashed))
}

/** Deletes the cookie: a verification link is confirmed once. */
export function clearRegistrant(ctx: RequestContext): Cookie {
  const cookie = ctx.cookieOptions.passwordSignup
  return expireCookie(cookie.name, cookie.options)
}

/**
 * The cookies of the two-factor step: the sealed challenge that carries a finished first
 * factor to `<basePath>/two-factor` (5 minutes, one per sign-in), and the "remember this
 * device" mark. Both are JWEs under keys derived with the cookie's name as salt, so neither
 * can pass as a session, as a check cookie or as the other.
 * @module
 */
import type { Cookie } from "../../base-types.js"
import { TwoFactorChallengeInvalid } from "../../errors.js"
import type { RequestContext } from "../context.js"
import { clearChunked, readChunked, writeChunked } from "../cookies.js"
import { sha256Hex } from "../crypto.js"
import { decodeWith, encodeWith } from "../jwt/codec.js"
import type { SignInResult } from "../session/index.js"

/** Seconds a user has to enter the code. */
export const CHALLENGE_MAX_AGE = 5 * 60

/** What a challenge carries: the first factor's result, and where the user was going. */
export interface Challenge {
  /**
   * Unique per challenge (`cid`, random): the attempts are counted and the challenge is
   * spent against it, in the shared store (`ledger.ts`).
   */
  id: string
  /** Epoch milliseconds the challenge expires at. */
  until: number
  userId: string
  provider: string | undefined
  callbackUrl: string
  result: SignInResult
}

/**
 * The challenge cookie(s) for `result` (chunked: an OAuth profile can be large), and the
 * challenge's id and expiry for the ledger.
 */
export async function sealChallenge(ctx: RequestContext, fields: Omit<Challenge, "id" | "until">): Promise<{ cookies: Cookie[]; id: string; until: number }> {
  const cookie = ctx.cookieOptions.twoFactorChallenge
  const id = crypto.randomUUID()
  const until = Date.now() + CHALLENGE_MAX_AGE * 1000
  const sealed = await encodeWith(ctx.config.keys, {
    token: { cid: id, uid: fields.userId, provider: fields.provider ?? null, callbackUrl: fields.callbackUrl, result: fields.result },
    secret: ctx.config.secrets,
    salt: cookie.name,
    maxAge: CHALLENGE_MAX_AGE,
  })
  const options = { ...cookie.options, maxAge: CHALLENGE_MAX_AGE, expires: new Date(until) }
  return { cookies: writeChunked(ctx.cookies, cookie.name, sealed, options), id, until }
}

/**
 * The request's challenge. Throws {@link TwoFactorChallengeInvalid} when it is missing,
 * expired, tampered with or not one (the cookie is then deleted).
 */
export async function openChallenge(ctx: RequestContext): Promise<Challenge> {
  const cookie = ctx.cookieOptions.twoFactorChallenge
  const raw = readChunked(ctx.cookies, cookie.name)
  // Stryker disable next-line ArrowFunction: undefined or null, both are refused by `!payload` below
  const payload = raw ? await decodeWith<Record<string, unknown>>(ctx.config.keys, { token: raw, secret: ctx.config.secrets, salt: cookie.name }).catch(() => null) : null
  const result = payload?.result as SignInResult | undefined
  // `result.user?.id !== payload.uid` also refuses a result that is no object (its `user` is
  // undefined, and `uid` was checked to be a string); `!result` only keeps `.user` from throwing.
  if (
    !payload || typeof payload.uid !== "string" || typeof payload.cid !== "string" || typeof payload.exp !== "number" ||
    payload.exp * 1000 <= Date.now() || typeof payload.callbackUrl !== "string" || !result || result.user?.id !== payload.uid
  ) {
    ctx.setCookies.push(...clearChallenge(ctx))
    throw new TwoFactorChallengeInvalid(raw ? "The two-factor challenge could not be opened (expired or tampered with)" : "There is no two-factor challenge: sign in first")
  }
  return {
    id: payload.cid,
    until: payload.exp * 1000,
    userId: payload.uid,
    provider: typeof payload.provider === "string" ? payload.provider : undefined,
    callbackUrl: payload.callbackUrl,
    result,
  }
}

/** Deletes the challenge cookie and its chunks. */
export function clearChallenge(ctx: RequestContext): Cookie[] {
  const cookie = ctx.cookieOptions.twoFactorChallenge
  return clearChunked(ctx.cookies, cookie.name, cookie.options)
}

/**
 * What ties a device mark to one enrollment: a digest of the sealed secret, so turning 2FA
 * off and on again (a new secret) forgets every remembered device.
 */
async function enrollmentMark(sealedSecret: string): Promise<string> {
  return (await sha256Hex(`portcullis-two-factor-device:${sealedSecret}`)).slice(0, 32)
}

/** The "remember this device" cookie for `userId`, good for `maxAge` seconds. */
export async function sealDevice(ctx: RequestContext, userId: string, sealedSecret: string, maxAge: number): Promise<Cookie> {
  const cookie = ctx.cookieOptions.twoFactorDevice
  const value = await encodeWith(ctx.config.keys, {
    token: { uid: userId, mark: await enrollmentMark(sealedSecret) },
    secret: ctx.config.secrets,
    salt: cookie.name,
    maxAge,
  })
  return { name: cookie.name, value, options: { ...cookie.options, maxAge, expires: new Date(Date.now() + maxAge * 1000) } }
}

/** Whether the request carries a device mark for `userId` and this enrollment. */
export async function rememberedDevice(ctx: RequestContext, userId: string, sealedSecret: string): Promise<boolean> {
  const cookie = ctx.cookieOptions.twoFactorDevice
  const raw = ctx.cookies[cookie.name]
  // Stryker disable next-line ConditionalExpression: a shortcut only — decodeWith answers null for an empty token, which is refused below too
  if (!raw) return false
  // Stryker disable next-line ArrowFunction: undefined or null, both are refused by `!!payload` below
  const payload = await decodeWith<{ uid?: unknown; mark?: unknown }>(ctx.config.keys, { token: raw, secret: ctx.config.secrets, salt: cookie.name }).catch(() => null)
  return !!payload && payload.uid === userId && payload.mark === (await enrollmentMark(sealedSecret))
}

/**
 * `<basePath>/two-factor`: the second sign-in step. `GET` shows the code page for the
 * challenge a first factor left in its cookie; `POST` (CSRF-checked) judges one code and,
 * when it passes, issues the session exactly as the first factor would have — the same
 * session strategy, `jwt` callback and `signIn` event, with the first factor's result.
 *
 * parse → check (challenge, attempts in this process and in the shared store, rate limit,
 * the user's wrong-code slots) → act (the code, atomically used; the challenge, atomically
 * spent in the shared store) → respond.
 * @module
 */
import type { ResponseInternal } from "../../base-types.js"
import { TwoFactorChallengeInvalid } from "../../errors.js"
import type { RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { pageHeaders } from "../http/response.js"
import { pageBase } from "./page-base.js"
import { establishSession } from "../login.js"
import { audit } from "../audit/index.js"
import { renderTwoFactor } from "../pages/two-factor.js"
import { clearChallenge, openChallenge, sealDevice, type Challenge } from "../two-factor/challenge.js"
import { lockedOut, type Claim, type TwoFactorLedger } from "../two-factor/ledger.js"
import { MAX_ATTEMPTS, type ResolvedTwoFactor } from "../two-factor/options.js"
import { checkCode, isGuess } from "../two-factor/verify.js"

export async function twoFactor(ctx: RequestContext): Promise<ResponseInternal> {
  const settings = ctx.config.twoFactor
  if (!settings) throw new TwoFactorChallengeInvalid("Two-factor authentication is not configured")
  return ctx.method === "POST" ? verify(ctx, settings) : page(ctx, settings)
}

async function render(ctx: RequestContext, settings: ResolvedTwoFactor, wrong?: { attemptsLeft: number }): Promise<ResponseInternal> {
  const html = renderTwoFactor({
    ...(await pageBase(ctx)),
    rememberDevice: settings.rememberDevice > 0,
    wrong,
  })
  return { status: wrong ? 401 : 200, headers: pageHeaders, body: html }
}

/** `GET`: the page, for a live challenge only (else back to sign-in). */
async function page(ctx: RequestContext, settings: ResolvedTwoFactor): Promise<ResponseInternal> {
  await openChallenge(ctx)
  return render(ctx, settings)
}

/** `POST`: one code against the challenge's user. */
async function verify(ctx: RequestContext, settings: ResolvedTwoFactor): Promise<ResponseInternal> {
  const { store, ledger } = settings
  await verifyCsrf(ctx)
  const challenge = await openChallenge(ctx)
  // Counted before the code is judged, so concurrent guesses cannot all slip under the cap:
  // first in this process (no round trip for a copy it already saw used up or spent), then
  // in the shared store, where the cap holds across instances.
  const local = settings.attempts.hit(challenge.id, challenge.until)
  const shared = local > MAX_ATTEMPTS ? undefined : await ledger.challengeAttempt(challenge)
  if (!shared) {
    ctx.setCookies.push(...clearChallenge(ctx))
    throw new TwoFactorChallengeInvalid(`The two-factor challenge of user ${challenge.userId} is used up (${MAX_ATTEMPTS} codes tried, or its code passed already); sign in again`)
  }
  await ctx.config.rateLimit?.checkTwoFactor(challenge.userId, ctx.clientAddress)
  const userSlot = await ledger.userAttempt(challenge.userId)
  if (!userSlot) {
    ctx.config.logLimiter.warn("two-factor-code-refused", `${challenge.userId}:locked`, { userId: challenge.userId, reason: "locked" })
    throw lockedOut(challenge.userId)
  }
  const record = await store.getTwoFactor(challenge.userId)
  if (!record?.enabled) {
    ctx.setCookies.push(...clearChallenge(ctx))
    throw new TwoFactorChallengeInvalid("Two-factor authentication was turned off during the challenge; sign in again")
  }
  const checked = await checkCode(ctx.config, store, record, ctx.body?.code)
  if (!isGuess(checked)) await giveBack(ctx, ledger, userSlot)
  if (!checked.ok) {
    ctx.config.logLimiter.warn("two-factor-code-refused", `${challenge.userId}:${checked.reason}`, { userId: challenge.userId, reason: checked.reason })
    await audit(ctx, { type: "signInFailed", outcome: "failure", userId: challenge.userId, method: "twoFactor", reason: "TwoFactorCodeInvalid", details: { code: checked.reason } })
    return render(ctx, settings, { attemptsLeft: Math.max(0, MAX_ATTEMPTS - Math.max(local, shared.count)) })
  }
  // One challenge, one session: the shared store decides which copy of this challenge (on
  // any instance, with any valid code) signs in. A store that fails here answers 503 and
  // issues nothing. The losers' codes are used all the same.
  if (!(await ledger.spend(challenge))) {
    ctx.setCookies.push(...clearChallenge(ctx))
    throw new TwoFactorChallengeInvalid(`The two-factor challenge of user ${challenge.userId} was passed already (by another request, on this or another instance); sign in again`)
  }
  settings.attempts.spend(challenge.id, challenge.until)
  ctx.setCookies.push(...clearChallenge(ctx))
  if (settings.rememberDevice > 0 && ctx.body?.remember === "1") {
    ctx.setCookies.push(await sealDevice(ctx, challenge.userId, record.secret, settings.rememberDevice))
  }
  ctx.config.logger.debug("two_factor_passed", { userId: challenge.userId, used: checked.used })
  if (checked.used === "backup") await audit(ctx, { type: "backupCodeUsed", outcome: "success", userId: challenge.userId })
  return establishSession(ctx, firstFactorResult(challenge), { callbackUrl: challenge.callbackUrl, provider: challenge.provider, used: checked.used })
}

/** A passed code gives its user slot back; best effort (a slot kept counts as one wrong code more). */
async function giveBack(ctx: RequestContext, ledger: TwoFactorLedger, slot: Claim): Promise<void> {
  try {
    await ledger.release(slot)
  } catch (error) {
    ctx.config.logger.debug("two_factor_slot_kept", { error: error instanceof Error ? error.message : String(error) })
  }
}

/**
 * The first factor's result as sealed, so the session is issued from exactly what the first
 * factor produced (custom fields an `authorize` returned included). The cookie went through
 * JSON: `emailVerified` is revived as the `Date` it was.
 */
function firstFactorResult(challenge: Challenge): Challenge["result"] {
  const { user } = challenge.result
  const verified = (user as { emailVerified?: unknown }).emailVerified
  if (typeof verified !== "string") return challenge.result
  return { ...challenge.result, user: { ...user, emailVerified: new Date(verified) } as Challenge["result"]["user"] }
}

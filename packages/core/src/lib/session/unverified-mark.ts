import type { AdapterUser } from "../../adapters.js"
import type { JWT } from "../jwt/types.js"
import type { RequestContext } from "../context.js"
import type { SignInResult } from "./strategy.js"

/**
 * The JWT claim that marks a session of a stored user whose address was not verified when
 * the session was issued (a passkey sign-up, an OAuth profile that does not vouch for its
 * email). Its value is the issue time in seconds since the epoch, like `iat`. Auth.js
 * ignores unknown claims, so marked cookies still open there.
 *
 * Why: when the address is later verified, that user is deleted and replaced (T67,
 * `lib/first-verification.ts`). Database sessions die with the user; a JWT is stateless
 * and would live on, so a marked token is confirmed against the adapter on every check.
 * Unmarked tokens — every verified user's — never pay for this.
 */
export const UNVERIFIED_CLAIM = "pcl_unverified"

/**
 * The mark for a new session, or `undefined` when none is needed: only users stored by the
 * adapter whose `emailVerified` is null. Credentials users come from the app's
 * `authorize()`, not the adapter, so there is nothing to look up for them.
 */
export function unverifiedMark(ctx: RequestContext, { user, account }: SignInResult): number | undefined {
  if (!ctx.config.adapter || account?.type === "credentials") return undefined
  const stored = user as Partial<AdapterUser>
  if (!stored.id || !("emailVerified" in stored) || stored.emailVerified != null) return undefined
  return Math.floor(Date.now() / 1000)
}

/**
 * When a configuration with an adapter last confirmed a marked token's user (seconds since
 * the epoch). Absent until the first confirmation after issue: the mark's own time stands in.
 *
 * Why: Auth.js's split edge setup runs the middleware on a configuration without an adapter
 * (auth.config.ts), which cannot ask whether the user still exists. It accepts a marked
 * token for `session.unverifiedMaxAge` after this time and never moves it; only a check
 * that can ask (auth.ts, with the adapter) does. So a token whose user was replaced (T67)
 * outlives the replacement in edge-only checks by at most that long, while an honest user
 * who reaches any full check keeps a fresh confirmation and is never signed out.
 */
export const CONFIRMED_CLAIM = "pcl_confirmed"

/** What the adapter says about a marked token's user, or what a configuration without one concludes. */
export type MarkCheck =
  /** Unmarked, or the adapter says the user is still there and still unverified: the session stands. */
  | "valid"
  /** The user was verified in place after the token was issued: the session stands, the mark can go. */
  | "verified"
  /** The user is gone (replaced by a verified one) or was verified before issue: refuse. */
  | "revoked"
  /**
   * No adapter to ask (an edge configuration), and an adapter confirmed the token less than
   * `session.unverifiedMaxAge` ago: the session stands as it is, the cookie unchanged.
   */
  | "unconfirmed"
  /**
   * No adapter to ask, and the last confirmation is older than that: no session here, but the
   * cookie stays — a configuration with the adapter confirms (and refreshes) or refuses it.
   */
  | "stale"

/**
 * Confirms a marked token with `getUser(sub)`; unmarked tokens answer at once, and so does a
 * configuration without `getUser` (from the token's confirmation time). A failing store
 * throws its `AdapterError`: the session check then answers `ServiceUnavailable` (503,
 * cookie kept), as database sessions do — an outage is neither a sign-out nor a session.
 */
export function checkUnverifiedMark(ctx: RequestContext, payload: JWT): MarkCheck | Promise<MarkCheck> {
  // Unmarked (nearly every token): the answer at once, no promise.
  const mark = payload[UNVERIFIED_CLAIM]
  if (mark === undefined) return "valid"
  if (typeof mark !== "number" || typeof payload.sub !== "string") return "revoked"
  // Nothing to ask: this configuration cannot tell a replaced user from a live one. Refusing
  // would sign every unverified user out of the edge middleware on each request; accepting
  // for ever would let a replaced user's token live there. Accepted for a bounded time.
  if (!ctx.config.adapter?.getUser) {
    const age = Math.floor(Date.now() / 1000) - confirmedAt(payload)
    return age < ctx.config.session.unverifiedMaxAge ? "unconfirmed" : "stale"
  }
  return checkMarked(ctx, mark, payload.sub)
}

async function checkMarked(ctx: RequestContext, mark: number, sub: string): Promise<MarkCheck> {
  const user: AdapterUser | null = await ctx.config.adapter!.getUser!(sub)
  if (!user) return "revoked"
  if (user.emailVerified == null) return "valid"
  return new Date(user.emailVerified).getTime() >= mark * 1000 ? "verified" : "revoked"
}

/** The last confirmation of a marked token (seconds): its {@link CONFIRMED_CLAIM}, else the mark's time. */
export function confirmedAt(payload: JWT): number {
  const confirmed = payload[CONFIRMED_CLAIM]
  if (typeof confirmed === "number") return confirmed
  const mark = payload[UNVERIFIED_CLAIM]
  return typeof mark === "number" ? mark : 0
}

/**
 * Whether a marked token the adapter just confirmed should be re-issued only to refresh its
 * confirmation: once half of `session.unverifiedMaxAge` has passed, so an active user's
 * token never reaches the edge's limit while they keep reaching full checks.
 */
export function confirmationDue(ctx: RequestContext, payload: JWT, now: number): boolean {
  return now - confirmedAt(payload) >= ctx.config.session.unverifiedMaxAge / 2
}

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

/** What the adapter says about a marked token's user. */
export type MarkCheck =
  /** Unmarked, or the user is still there and still unverified: the session stands. */
  | "valid"
  /** The user was verified in place after the token was issued: the session stands, the mark can go. */
  | "verified"
  /** The user is gone (replaced by a verified one) or was verified before issue: refuse. */
  | "revoked"

/**
 * Confirms a marked token with `getUser(sub)`; unmarked tokens answer at once. A failing
 * store throws its `AdapterError`: the session check then answers `ServiceUnavailable` (503,
 * cookie kept), as database sessions do — an outage is neither a sign-out nor a session.
 */
export function checkUnverifiedMark(ctx: RequestContext, payload: JWT): MarkCheck | Promise<MarkCheck> {
  // Unmarked (nearly every token): the answer at once, no promise.
  return payload[UNVERIFIED_CLAIM] === undefined ? "valid" : checkMarked(ctx, payload)
}

async function checkMarked(ctx: RequestContext, payload: JWT): Promise<MarkCheck> {
  const mark = payload[UNVERIFIED_CLAIM]
  const adapter = ctx.config.adapter
  if (typeof mark !== "number" || typeof payload.sub !== "string" || !adapter?.getUser) return "revoked"
  const user: AdapterUser | null = await adapter.getUser(payload.sub)
  if (!user) return "revoked"
  if (user.emailVerified == null) return "valid"
  return new Date(user.emailVerified).getTime() >= mark * 1000 ? "verified" : "revoked"
}

/**
 * The two moments a session's step-up mark changes outside the gate: a sign-in proves a
 * first factor (the new session starts fresh), a sign-out ends the session (its mark goes,
 * so a copy of a JWT cookie that outlives the sign-out does not inherit it).
 * @module
 */
import type { Cookie } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { clearMark, markFresh } from "./marks.js"
import { currentSession, sessionOfCookies } from "./session.js"
import { report } from "../report.js"

/**
 * Marks the session a sign-in just created. Best effort: a step-up store that is down costs
 * the user a re-authentication later, not the sign-in (logged).
 */
export async function markSignIn(ctx: RequestContext, cookies: Cookie[], userId: string | undefined): Promise<void> {
  if (!userId) return
  try {
    const session = await sessionOfCookies(ctx, cookies, userId)
    if (session) await markFresh(ctx.config, session)
  } catch (error) {
    report(ctx.config, error)
  }
}

/** Marks the request's own session after it proved a first factor in place (a password change). Best effort, as {@link markSignIn}. */
export async function markCurrentSession(ctx: RequestContext): Promise<void> {
  try {
    const session = await currentSession(ctx)
    if (session) await markFresh(ctx.config, session)
  } catch (error) {
    report(ctx.config, error)
  }
}

/**
 * Forgets the mark of the JWT session a sign-out is about to end: without a registry a copy
 * of its cookie stays readable, and must not keep the mark. (A database session, or a
 * registered JWT session, is gone with the sign-out, its mark with it.) Best effort: the
 * mark then ends at its `maxAge`.
 */
export async function clearOnSignOut(ctx: RequestContext): Promise<void> {
  if (ctx.config.session.strategy === "database" || ctx.config.sessionRegistry) return
  try {
    const session = await currentSession(ctx)
    if (session) await clearMark(ctx.config, session)
  } catch (error) {
    report(ctx.config, error)
  }
}

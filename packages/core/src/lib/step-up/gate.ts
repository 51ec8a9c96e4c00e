/**
 * The one gate every sensitive action goes through: a valid session of this request whose
 * first factor was proven within `stepUp.maxAge` (docs/step-up.md).
 * @module
 */
import { NotSignedIn, StepUpRequired } from "../../errors.js"
import type { RequestContext } from "../context.js"
import { readMark } from "./marks.js"
import { currentSession, type StepUpSession } from "./session.js"

/** What {@link stepUpState} answers: whether signed in, and until when the session's mark is fresh. */
export interface StepUpStatus {
  signedIn: boolean
  /** Whether a sensitive action would be allowed now. */
  fresh: boolean
  /** When the mark ends (`null` without a fresh one). */
  freshUntil: Date | null
}

/**
 * The session of `ctx`, when it is signed in and stepped up.
 * @throws NotSignedIn without a valid session; StepUpRequired without a fresh mark;
 * ServiceUnavailable when the step-up store (or the session store) failed.
 */
export async function requireStepUp(ctx: RequestContext): Promise<StepUpSession> {
  // Asked of the registry now: a copy of a session its owner signed out on another instance
  // must not act there for the rest of the revocation check interval.
  const session = await currentSession(ctx, { fresh: true })
  if (!session) throw new NotSignedIn("No valid session in this request")
  if (!(await readMark(ctx.config, session))) {
    ctx.config.logger.debug("step_up_required", { userId: session.userId })
    throw new StepUpRequired("This action needs a recent sign-in: re-authenticate first")
  }
  return session
}

/** The step-up state of the request's session, for a settings page ("confirm your password to continue"). */
export async function stepUpState(ctx: RequestContext): Promise<StepUpStatus> {
  const session = await currentSession(ctx)
  if (!session) return { signedIn: false, fresh: false, freshUntil: null }
  const mark = await readMark(ctx.config, session)
  return { signedIn: true, fresh: !!mark, freshUntil: mark?.until ?? null }
}

/** Where the built-in actions send a browser whose session needs a step-up: the re-authentication page, then back. */
export function reauthenticateUrl(ctx: RequestContext, callbackUrl: string): string {
  const url = new URL(`${ctx.authUrl}/reauthenticate`)
  url.searchParams.set("callbackUrl", callbackUrl)
  return url.href
}

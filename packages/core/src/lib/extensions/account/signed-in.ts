/**
 * The account facet's starting point: the request's own session, read fresh (a session
 * revoked on another instance is none here), and its user from the adapter. Nothing in the
 * facet takes a user id, so nothing in it can reach another user's records.
 * @module
 */
import type { Adapter, AdapterUser } from "../../../adapters.js"
import { NotSignedIn } from "../../../errors.js"
import type { RequestContext } from "../../context.js"
import { currentSession } from "../../step-up/session.js"
import { ExtensionRequestError } from "../errors.js"

/** The signed-in user of `ctx` and the adapter; `NotSignedIn` without a valid session or with a deleted user. */
export async function signedIn(ctx: RequestContext): Promise<{ user: AdapterUser; adapter: Adapter }> {
  const adapter = ctx.config.adapter
  if (!adapter?.getUser) throw unsupported("getUser")
  const session = await currentSession(ctx, { fresh: true })
  if (!session) throw new NotSignedIn("No valid session in this request")
  const user = session.user ?? (await adapter.getUser(session.userId))
  if (!user) throw new NotSignedIn("The session's user no longer exists")
  return { user, adapter }
}

/** Refuses a call the adapter cannot serve: a sentence naming the missing method. */
export function unsupported(method: string): ExtensionRequestError {
  return new ExtensionRequestError("unsupported", `The adapter has no ${method}, which this needs (docs/account.md)`, 409)
}

/**
 * Runs `work` holding the adapter's lock on the user's ways in, where the adapter has locks:
 * two removals racing for the last two ways in cannot both pass the count. Without locks
 * the count is read just before the removal (documented in docs/account.md).
 */
export async function withWaysLock<T>(adapter: Adapter, userId: string, work: () => Promise<T>): Promise<T> {
  if (!adapter.acquireLock || !adapter.releaseLock) return work()
  const key = `account-ways:${userId}`
  const owner = crypto.randomUUID()
  for (let attempt = 0; !(await adapter.acquireLock(key, owner, 10_000)); attempt++) {
    if (attempt >= 50) throw new ExtensionRequestError("busy", "Another change to your sign-in methods is under way; try again", 409)
    await new Promise((r) => setTimeout(r, 20))
  }
  try {
    return await work()
  } finally {
    await adapter.releaseLock(key, owner)
  }
}

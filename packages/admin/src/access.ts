/**
 * Who is an admin: decided at every call from the user as the adapter has them now (not from
 * a claim in the session token), so taking the role away takes effect on the next request.
 * @module
 */
import { ExtensionRequestError, type ExtensionSession, type ExtensionTools } from "@portcullis/core/extension"
import type { AdminLocals, AdminUserRecord } from "./locals.js"

/** The signed-in admin: their session and user. */
export interface AdminCaller {
  session: ExtensionSession
  user: AdminUserRecord
}

/**
 * The signed-in user when they are an admin; `NotSignedIn` (401) without a session,
 * `not-admin` (403) otherwise. Every route and server function starts here. With `stepUp`
 * (banning, ending sessions, resetting a second factor) the admin must also have proven a
 * factor recently (`StepUpRequired`, docs/step-up.md): a stolen admin cookie alone cannot.
 */
export async function requireAdmin(call: ExtensionTools, locals: AdminLocals, options: { stepUp?: boolean } = {}): Promise<AdminCaller> {
  let session = await call.requireSession()
  // An impersonated session has no admin rights, whoever it names: no console, no chains —
  // said before step-up, which such a session could never pass anyway.
  if (locals.impersonation && (await locals.impersonation.store.get(session.key))) throw new ExtensionRequestError("impersonating", "An impersonated session cannot use the admin console; end the impersonation first", 403)
  if (options.stepUp) session = await call.requireSession({ stepUp: true })
  const user = await locals.getUser(session.userId)
  if (!user || !(await locals.isAdmin(user))) throw new ExtensionRequestError("not-admin", "Only administrators may use the admin console", 403)
  return { session, user }
}

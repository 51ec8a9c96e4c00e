import type { AdapterUser } from "../../adapters.js"
import type { Account, Cookie, Profile, ResponseInternal, User } from "../../base-types.js"
import type { RequestContext } from "../context.js"

/** What a sign-in hands to the session strategy. */
export interface SignInResult {
  user: User | AdapterUser
  account: Account | null
  profile?: Profile
  isNewUser?: boolean
}

/** One interface, two strategies: an encrypted cookie (`jwt`) or a row via the adapter (`database`). */
export interface SessionStrategy {
  /** `GET /session` (and `POST` with `update`): the session body and cookie changes. */
  read(ctx: RequestContext, update?: { data: unknown }): Promise<ResponseInternal>
  /** Starts a session after a successful sign-in; returns the cookies to set. */
  create(ctx: RequestContext, result: SignInResult): Promise<Cookie[]>
  /** Ends the session (sign-out); returns the cookies that delete it. */
  destroy(ctx: RequestContext): Promise<Cookie[]>
  /** Id of the signed-in user, for linking a new account to them; `null` when signed out. */
  currentUserId(ctx: RequestContext): Promise<string | null>
}

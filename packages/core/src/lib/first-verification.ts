import type { AdapterUser } from "../adapters.js"
import { MissingAdapterMethods } from "../errors.js"
import type { RequestContext } from "./context.js"
import { createUser } from "./login.js"
import { store } from "./config/stores.js"
import { audit } from "./audit/index.js"

/** What the fresh user is made of: the verified address, and what the verifier says. */
export interface VerifiedIdentity {
  /** Id for the fresh user; a new random one when left out. */
  id?: string
  email: string
  name: string | null
  image: string | null
}

/**
 * T67, pre-verification credentials. A user whose address was never verified was made by
 * whoever typed that address first — a passkey sign-up, an OAuth profile that does not vouch
 * for its email, credentials with database sessions. When the address is verified for the
 * first time, that user is not adopted: it is deleted through `adapter.deleteUser` (which
 * takes its sessions, accounts and authenticators with it, so every credential and session
 * made before the verification dies), and a fresh user with a new id, the verified address
 * and nothing chosen by the earlier registrant is created (`createUser` event; the sign-in is
 * a sign-up). Adopting it instead would leave the earlier registrant — possibly an attacker
 * who pre-registered the victim's address — signed in to the victim's verified account.
 *
 * Every caller (an email link, OAuth, an extension's `req.signIn`, the password provider's
 * verification and reset links) has asked the extensions' sign-in gates first
 * (`admitSignIn`), with `stale`'s id: a refused one deletes and creates nothing, and a ban of
 * the unverified user is not shed by proving the address.
 */
export async function replaceUnverifiedUser(ctx: RequestContext, stale: AdapterUser, fresh: VerifiedIdentity): Promise<{ user: AdapterUser; isNewUser: boolean }> {
  const adapter = store(ctx.config.stores, "users")
  // The configuration check requires deleteUser wherever this can be reached; an
  // unverified user made by the app itself can still lead here, so refuse rather than adopt.
  if (!adapter.deleteUser) {
    throw new MissingAdapterMethods("The adapter lacks deleteUser: an unverified user cannot be replaced when its address is verified (T67)")
  }
  await adapter.deleteUser(stale.id)
  try {
    const user = await createUser(ctx, { ...fresh, emailVerified: new Date() })
    await audit(ctx, { type: "emailVerified", outcome: "success", userId: user.id })
    return { user, isNewUser: true }
  } catch (error) {
    // Two verifications of one address at the same moment: the other one made the fresh
    // user (the address is unique). Anything else, or an unverified winner, fails.
    const winner = await adapter.getUserByEmail(fresh.email)
    if (winner?.emailVerified) return { user: winner, isNewUser: false }
    throw error
  }
}

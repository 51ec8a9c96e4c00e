/**
 * The sign-in gate (`Extension.signInGate`): asked in `establishSession`, the one place every
 * provider kind's sign-in becomes a session, so a refusal (the admin console's ban) covers
 * credentials, password, OAuth/OIDC, email links and passkeys alike. Loaded with the
 * extensions' resolver, and only set (`ResolvedExtensions.gate`) when an extension has a gate.
 *
 * Asked twice: before the session exists, and again once it does. The second answer closes
 * the race with a refusal written meanwhile: a ban is stored before its sessions are revoked,
 * so a sign-in either sees the ban here (and ends the session it just made) or made its
 * session before the ban was stored — and then the revocation finds it.
 *
 * And asked earlier, before a sign-in writes anything (`ResolvedExtensions.admit`, through
 * `admitSignIn` in login.ts): its new user, or an account or passkey it links to a user. As
 * Auth.js's `signIn` callback runs before the user exists, a refusal then leaves nothing
 * behind — a user refused at the session would otherwise stay, with its `createUser` event
 * fired and its account linked. A user about to be made has no id yet: the gates are asked
 * without `userId` (by the address and the provider alone), as they are before a sign-in link
 * is mailed or a password sign-up is taken, for known and unknown addresses alike.
 * @module
 */
import { AccountSuspended } from "./errors.js"
import type { Cookie } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { sessionStrategy, type SignInResult } from "../session/index.js"
import type { ResolvedExtension } from "./shapes.js"

/** Whom the gates are asked about; `userId` absent when there is nobody to look up yet. */
export interface Entrant {
  userId?: string | undefined
  email?: string | null | undefined
  provider?: string | undefined
}

/** The gate over `gated` (the extensions with a `signInGate`), as `ResolvedExtensions.gate`. */
export function signInGate(gated: readonly ResolvedExtension[]) {
  return async (ctx: RequestContext, result: SignInResult, cookies?: readonly Cookie[]): Promise<void> => {
    const userId = result.user.id
    const refusal = await refusalOf(gated, {
      // Every sign-in that gets here has its user's id; without one the gates are asked as about a new user.
      userId: typeof userId === "string" ? userId : undefined,
      email: result.user.email,
      provider: result.account?.provider ?? ctx.providerId,
    })
    if (refusal === undefined) return
    if (cookies) await endCreated(ctx, cookies)
    throw suspended(refusal)
  }
}

/** The gate asked before a sign-in writes anything, as `ResolvedExtensions.admit`: nothing written yet, so nothing to undo. */
export function admission(gated: readonly ResolvedExtension[]) {
  return async (entrant: Entrant): Promise<void> => {
    const refusal = await refusalOf(gated, entrant)
    if (refusal !== undefined) throw suspended(refusal)
  }
}

function suspended(refusal: { id: string; reason: string }): AccountSuspended {
  return new AccountSuspended(`Sign-in refused by the ${refusal.id} extension: ${refusal.reason}`)
}

/**
 * The first refusal among the gates, asked in order. A gate that throws fails the sign-in
 * (fail closed): its error goes on as thrown — a store wrapped with `host.wrapStore` fails as
 * an outage (503), never as a sign-in let through.
 */
async function refusalOf(gated: readonly ResolvedExtension[], { userId, email, provider }: Entrant): Promise<{ id: string; reason: string } | undefined> {
  for (const { extension, locals } of gated) {
    const verdict = await extension.signInGate!({
      ...(userId !== undefined && { userId }),
      ...(email && { email }),
      ...(provider !== undefined && { provider }),
      locals,
    })
    if (verdict && typeof verdict === "object") return { id: extension.id, reason: String(verdict.refuse) }
  }
  return undefined
}

/** Ends the session `cookies` just created (a row deleted, a registry entry removed), as a sign-out of it would. */
async function endCreated(ctx: RequestContext, cookies: readonly Cookie[]): Promise<void> {
  const jar = { ...ctx.cookies }
  for (const cookie of cookies) jar[cookie.name] = cookie.value
  await sessionStrategy(ctx).destroy({ ...ctx, cookies: jar })
}

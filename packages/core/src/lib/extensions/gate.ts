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
 * @module
 */
import { AccountSuspended } from "./errors.js"
import type { Cookie } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { sessionStrategy, type SignInResult } from "../session/index.js"
import type { ResolvedExtension } from "./shapes.js"

/** The gate over `gated` (the extensions with a `signInGate`), as `ResolvedExtensions.gate`. */
export function signInGate(gated: readonly ResolvedExtension[]) {
  return async (ctx: RequestContext, result: SignInResult, cookies?: readonly Cookie[]): Promise<void> => {
    const refusal = await refusalOf(gated, ctx, result)
    if (refusal === undefined) return
    if (cookies) await endCreated(ctx, cookies)
    throw new AccountSuspended(`Sign-in refused by the ${refusal.id} extension: ${refusal.reason}`)
  }
}

/** The first refusal among the gates, asked in order; a gate that throws fails the sign-in (fail closed). */
async function refusalOf(gated: readonly ResolvedExtension[], ctx: RequestContext, result: SignInResult): Promise<{ id: string; reason: string } | undefined> {
  const userId = result.user.id
  if (typeof userId !== "string") return undefined
  const provider = result.account?.provider ?? ctx.providerId
  for (const { extension, locals } of gated) {
    const verdict = await extension.signInGate!({
      userId,
      ...(result.user.email && { email: result.user.email }),
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

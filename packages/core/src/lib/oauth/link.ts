import type { AccountTokenPatch, AdapterAccount, AdapterUser } from "../../adapters.js"
import { AdapterError, NotSignedIn, OAuthAccountNotLinked, StepUpRequired } from "../../errors.js"
import type { Account, Profile, ResponseInternal, TokenSet, User } from "../../base-types.js"
import { resolveCallbackUrl, type RequestContext } from "../context.js"
import { replaceUnverifiedUser } from "../first-verification.js"
import { admitSignIn, awaitRow, createUser, establishSession, runSignInCallback } from "../login.js"
import { sessionStrategy } from "../session/index.js"
import { storedAccount, type MappedProfile } from "./profile.js"
import type { OAuthRuntime } from "./provider.js"
import { store } from "../config/stores.js"
import { audit } from "../audit/index.js"
import { reauthenticateUrl, requireStepUp } from "../step-up/gate.js"

/** What the provider told us about the user, after mapping. */
export interface ProviderIdentity {
  mapped: MappedProfile
  /** The provider's raw profile (id_token claims or userinfo). */
  profile: Profile
  tokens: TokenSet
}

/**
 * The user id of an OAuth sign-in without an adapter: `<provider id>:<provider account id>`.
 * Stable across sign-ins (Auth.js mints a random UUID each time, so `token.sub` changes on
 * every sign-in), and prefixed so that two providers' users never share an id.
 */
function statelessUserId(rt: OAuthRuntime, mapped: MappedProfile): string {
  return `${rt.id}:${mapped.providerAccountId}`
}

/**
 * The shared end of an OAuth sign-in: the `signIn` callback, the account-linking rules,
 * and the session.
 *
 * Linking (with an adapter), as Auth.js:
 * - the account is already linked → that user (refused if another user is signed in);
 * - a user is signed in → the account is linked to them;
 * - the address belongs to an existing user → `OAuthAccountNotLinked`, unless the provider
 *   sets `allowDangerousEmailAccountLinking`, and then only if the provider does not say
 *   the address is unverified (`email_verified` must be `true` when present). If that user
 *   was never verified (T67), the provider's `email_verified: true` is the first
 *   verification: the user is replaced by a fresh one, as an email link would; a provider
 *   that does not vouch cannot link to an unverified user at all;
 * - otherwise a new user plus the account, verified when the provider vouches for the
 *   address. If linking fails after the user was created, the user is deleted again:
 *   adapters need not have transactions, and an account-less user would turn every later
 *   attempt into `OAuthAccountNotLinked`.
 *
 * The extensions' sign-in gates are asked before a user is created or an account linked
 * (`admitSignIn`): a refused sign-in leaves neither behind.
 *
 * Concurrent first sign-ins of one account (a double-click, two tabs) all succeed with one
 * user and one account: a request whose insert loses on a unique constraint, or that finds
 * the address taken before refusing, first waits briefly for the account to appear linked
 * — then the other request is signing in this very account — and continues with that user.
 */
export async function completeSignIn(ctx: RequestContext, rt: OAuthRuntime, identity: ProviderIdentity): Promise<ResponseInternal> {
  const { mapped, profile } = identity
  // Without an adapter (no store for OAuth users) the sign-in is stateless.
  const adapter = ctx.config.stores.oauth
  if (!adapter) {
    const user: User = { ...mapped.user, id: statelessUserId(rt, mapped) }
    const redirect = await runSignInCallback(ctx, { user, account: mapped.account, profile })
    if (redirect) return { redirect }
    return establishSession(ctx, { user, account: mapped.account, profile, isNewUser: false })
  }

  const linked = await adapter.getUserByAccount({ provider: rt.id, providerAccountId: mapped.providerAccountId })
  const redirect = await runSignInCallback(ctx, {
    user: linked ?? { ...mapped.user, id: statelessUserId(rt, mapped) },
    account: mapped.account,
    profile,
  })
  if (redirect) return { redirect }

  const currentUserId = await sessionStrategy(ctx).currentUserId(ctx)
  if (linked) {
    if (currentUserId && currentUserId !== linked.id) {
      throw new OAuthAccountNotLinked("This provider account belongs to another user than the signed-in one", { providerId: rt.id })
    }
    await storeNewTokens(ctx, rt, identity, linked.id)
    return finish(ctx, identity, linked, false)
  }

  const current = currentUserId ? await adapter.getUser(currentUserId) : null
  if (current) {
    // Linking another way in to the signed-in account is a sensitive action (docs/step-up.md):
    // with a stolen session alone, a thief would link his own provider account — a way back
    // in that outlives a password change — and the sign-in it ends in would mark the session
    // fresh, though the first factor it proved is his, not the account's.
    const refused = await stepUpRefusal(ctx)
    if (refused) return refused
    // The gates first: a refused sign-in links nothing.
    await admitSignIn(ctx, { userId: current.id, email: current.email, provider: rt.id })
    await link(ctx, rt, identity, current)
    return finish(ctx, identity, current, false)
  }

  const email = mapped.user.email
  const owner = email ? await adapter.getUserByEmail(email) : null
  if (owner) return signInAsOwner(ctx, rt, identity, owner, false)

  // Verified when the provider vouches for this very address: such a user is not the
  // unverified kind a later email link replaces (T67).
  const emailVerified = email && vouches(profile, email) ? new Date() : null
  // The gates before the user exists: a refused sign-in leaves no user and no account.
  await admitSignIn(ctx, { email, provider: rt.id })
  let created: AdapterUser
  try {
    created = await createUser(ctx, { ...mapped.user, email: email as string, emailVerified })
  } catch (error) {
    if (!(error instanceof AdapterError)) throw error
    // The address was taken meanwhile. By a concurrent sign-in of this account, when the
    // account shows up linked; otherwise the usual rules for an existing address apply.
    const winner = await awaitRow(() => linkedUser(ctx, rt, identity)).catch(() => null)
    if (winner) return finish(ctx, identity, winner, false)
    const ownerNow = email ? await Promise.resolve(adapter.getUserByEmail(email)).catch(() => null) : null
    if (ownerNow) return signInAsOwner(ctx, rt, identity, ownerNow, true)
    throw error
  }
  return linkNew(ctx, rt, identity, created, true)
}

/** The provider says the address is verified (`email_verified: true`) and it is this one. */
function vouches(profile: Profile, email: string): boolean {
  return saysVerified(profile) && typeof profile.email === "string" && profile.email.toLowerCase() === email.toLowerCase()
}

/**
 * `email_verified` is `true` — or the string `"true"`, which Apple sends in its id_tokens
 * (its booleans are strings). Anything else, `"false"` included, is not a yes.
 */
function saysVerified(profile: Profile): boolean {
  const said: unknown = profile.email_verified
  return said === true || said === "true"
}

/**
 * Links the account to a user this sign-in created, deleting the user again if that fails
 * (`isNewUser` false: a concurrent sign-in made it, and it is not ours to delete).
 */
async function linkNew(ctx: RequestContext, rt: OAuthRuntime, identity: ProviderIdentity, user: AdapterUser, isNewUser: boolean): Promise<ResponseInternal> {
  try {
    await link(ctx, rt, identity, user)
  } catch (error) {
    // A concurrent sign-in of this account linked it first: to its own user (without an
    // email nothing stopped it earlier), or to this very user — it found the fresh user
    // this sign-in made when replacing an unverified one (T67). That link stands, and a
    // user it points to is not this sign-in's to delete.
    const winner = error instanceof AdapterError ? await linkedUser(ctx, rt, identity).catch(() => null) : null
    const ours = winner?.id === user.id
    if (isNewUser && !ours) await removeUser(ctx, user.id)
    if (winner) return finish(ctx, identity, winner, isNewUser && ours)
    throw error
  }
  return finish(ctx, identity, user, isNewUser)
}

/** The user this provider account is linked to, if any. */
async function linkedUser(ctx: RequestContext, rt: OAuthRuntime, identity: ProviderIdentity): Promise<AdapterUser | null> {
  return Promise.resolve(store(ctx.config.stores, "oauth").getUserByAccount({ provider: rt.id, providerAccountId: identity.mapped.providerAccountId }))
}

/**
 * The address belongs to `owner`: link when the provider allows it, else refuse — unless
 * the account turns up linked within a moment, which means `owner` was just created by a
 * concurrent first sign-in of this same account (it creates the user, then links).
 */
async function signInAsOwner(ctx: RequestContext, rt: OAuthRuntime, identity: ProviderIdentity, owner: AdapterUser, waited: boolean): Promise<ResponseInternal> {
  const refusal = !rt.provider.allowDangerousEmailAccountLinking
    ? "Another user has this email address; sign in with the method they use, then link"
    : // T55: linking on an address the provider itself calls unverified hands the existing
      // user to whoever registered that address at the provider.
      identity.profile.email_verified !== undefined && !saysVerified(identity.profile)
      ? "The provider does not vouch for this email address (email_verified is not true)"
      : undefined
  // T67: neither side has proved the address, or only the provider has — joining them
  // would hand this sign-in whatever the unverified user's registrant holds.
  const unverified = !refusal && !owner.emailVerified
  const unvouched = unverified && !vouches(identity.profile, owner.email)
  if (refusal || unvouched) {
    const winner = waited ? null : await awaitRow(() => linkedUser(ctx, rt, identity))
    if (winner) return finish(ctx, identity, winner, false)
    throw new OAuthAccountNotLinked(refusal ?? "The existing user's address is unverified and the provider does not vouch for it", { providerId: rt.id })
  }
  if (unverified) {
    // The provider's word is the address's first verification: a fresh user, as an email link
    // would — once the gates let it in, asked with the replaced user's id (before it is
    // deleted: a ban of it is not shed by verifying the address).
    await admitSignIn(ctx, { userId: owner.id, email: owner.email, provider: rt.id })
    const { user: fresh, isNewUser } = await replaceUnverifiedUser(ctx, owner, { email: owner.email, name: identity.mapped.user.name ?? null, image: identity.mapped.user.image ?? null })
    return linkNew(ctx, rt, identity, fresh, isNewUser)
  }
  await admitSignIn(ctx, { userId: owner.id, email: owner.email, provider: rt.id })
  try {
    await link(ctx, rt, identity, owner)
  } catch (error) {
    // Two concurrent sign-ins linking the same account to the same user: one insert wins.
    const winner = error instanceof AdapterError ? await linkedUser(ctx, rt, identity).catch(() => null) : null
    if (winner?.id !== owner.id) throw error
  }
  return finish(ctx, identity, owner, false)
}

/** `null` when the session stepped up recently; else the way to the re-authentication page (nothing linked). */
async function stepUpRefusal(ctx: RequestContext): Promise<ResponseInternal | null> {
  try {
    await requireStepUp(ctx)
    return null
  } catch (error) {
    // A session the gate cannot name (one from before step-up) goes the same way: the page sends it to sign in.
    if (!(error instanceof StepUpRequired) && !(error instanceof NotSignedIn)) throw error
    return { redirect: reauthenticateUrl(ctx, await resolveCallbackUrl(ctx)) }
  }
}

async function link(ctx: RequestContext, rt: OAuthRuntime, identity: ProviderIdentity, user: AdapterUser): Promise<void> {
  const account = storedAccount(rt, identity.mapped, identity.tokens, user.id) as AdapterAccount
  await store(ctx.config.stores, "oauth").linkAccount(account)
  await ctx.config.events.linkAccount({ user, account, profile: { ...identity.mapped.user, id: identity.mapped.providerAccountId } })
  await audit(ctx, { type: "accountLinked", outcome: "success", userId: user.id, method: account.type, provider: account.provider })
}

/**
 * A new sign-in with an account already linked: its fresh tokens replace the stored ones
 * (Auth.js keeps the first sign-in's tokens forever), and a re-consent mark is cleared —
 * when the adapter can update accounts (`updateAccount`, a Portcullis extension). A
 * refresh token the provider did not send again (Google sends one at first consent only)
 * is kept.
 */
async function storeNewTokens(ctx: RequestContext, rt: OAuthRuntime, identity: ProviderIdentity, userId: string): Promise<void> {
  const adapter = ctx.config.adapter
  if (typeof adapter?.updateAccount !== "function") return
  const stored = storedAccount(rt, identity.mapped, identity.tokens, userId)
  const text = (value: unknown) => (typeof value === "string" && value ? value : null)
  const patch: AccountTokenPatch = {
    access_token: text(stored.access_token),
    expires_at: typeof stored.expires_at === "number" ? stored.expires_at : null,
    token_type: text(stored.token_type),
    scope: text(stored.scope),
    id_token: text(stored.id_token),
    reauth_required: false,
  }
  if (text(stored.refresh_token)) patch.refresh_token = stored.refresh_token as string
  await adapter.updateAccount({ provider: rt.id, providerAccountId: identity.mapped.providerAccountId }, patch)
}

/** Compensation for a failed link: best effort, logged when it fails too. Also `req.signIn`'s (extensions/sign-in.ts). */
export async function removeUser(ctx: RequestContext, userId: string): Promise<void> {
  const { adapter, logger } = ctx.config
  if (!adapter?.deleteUser) {
    logger.error(new AdapterError(`The account could not be linked and the adapter has no deleteUser: remove user ${userId} by hand`))
    return
  }
  try {
    await adapter.deleteUser(userId)
  } catch (error) {
    logger.error(error as Error)
  }
}

function finish(ctx: RequestContext, identity: ProviderIdentity, user: AdapterUser, isNewUser: boolean): Promise<ResponseInternal> {
  const account: Account = { ...identity.mapped.account, userId: user.id }
  return establishSession(ctx, { user, account, profile: identity.profile, isNewUser })
}

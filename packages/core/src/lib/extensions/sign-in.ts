/**
 * `req.signIn` (`api.ts`): a session for an identity an extension verified — an SSO
 * assertion — made by the same last step as every provider kind's sign-in
 * (`establishSession`: the gates, the two-factor challenge, the session, events, audit, the
 * new-device notice). Loaded with `import()` on the first call.
 *
 * The user, by the rules of an OAuth sign-in with one difference: the extension, not a
 * provider flag, says whether the address is vouched for (a domain the organization proved):
 * - the account (`provider`, `providerAccountId`) is linked → that user;
 * - else the address belongs to a user → linked only when vouched for; an owner whose address
 *   was never verified is replaced by a fresh verified user (T67), as a first verification
 *   by email link would; not vouched for → `OAuthAccountNotLinked`;
 * - else a new user, only for a vouched-for address (an SSO sign-in never makes a user with
 *   an address nobody checked) → otherwise `AccessDenied`.
 * @module
 */
import type { AdapterAccount, AdapterUser } from "../../adapters.js"
import { AccessDenied, AdapterError, AuthError, InvalidConfig, OAuthAccountNotLinked } from "../../errors.js"
import type { Account, Cookie, ResponseInternal } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { actionErrorResponse, errorCode } from "../errors.js"
import { admitSignIn, awaitRow, createUserOnce, establishSession, runSignInCallback } from "../login.js"
import { replaceUnverifiedUser } from "../first-verification.js"
import { removeUser } from "../oauth/link.js"
import { store } from "../config/stores.js"
import { audit } from "../audit/index.js"
import { report } from "../report.js"
import { sessionOfCookies } from "../step-up/session.js"
import { sessionKey } from "./session-key.js"
import type { ExtensionIdentity, ExtensionSignInOutcome } from "./api.js"
import type { ResolvedExtension } from "./shapes.js"

/** Sign-in refusals answered as the sign-in page's error, not thrown (a store failure is thrown: a 503). */
const REFUSALS = new Set(["AccessDenied", "OAuthAccountNotLinked", "AccountSuspended"])

export async function signInAs(ctx: RequestContext, extension: ResolvedExtension, input: ExtensionIdentity): Promise<ExtensionSignInOutcome> {
  const identity = checked(ctx, extension.extension.id, input)
  // Where to land: the identity's callback URL when it names one, through the `redirect` callback as always.
  const flow = identity.callbackUrl === undefined ? ctx : ({ ...ctx, body: { ...ctx.body, callbackUrl: identity.callbackUrl } } as RequestContext)
  const account: Account = { provider: identity.provider, providerAccountId: identity.providerAccountId, type: identity.type as Account["type"] }
  const profile = { ...identity.profile, ...(identity.email && { email: identity.email }) }
  try {
    const adapter = store(ctx.config.stores, "oauth")
    const linked = await adapter.getUserByAccount({ provider: identity.provider, providerAccountId: identity.providerAccountId })
    const asked = linked ?? { id: `${identity.provider}:${identity.providerAccountId}`, email: identity.email ?? null, name: identity.name ?? null, image: identity.image ?? null }
    const redirect = await runSignInCallback(flow, { user: asked, account, profile })
    if (redirect) return { response: { redirect }, userId: null, isNewUser: false, session: null, refused: null }
    const { user, isNewUser } = linked ? { user: linked, isNewUser: false } : await userFor(flow, identity)
    const before = ctx.setCookies.length
    const done = await establishSession(flow, { user, account: { ...account, userId: user.id }, profile, isNewUser })
    // Its `signIn` audit event is establishSession's, once the session exists (after a second factor, not before).
    return { response: answer(ctx, done), userId: user.id, isNewUser, session: await madeSession(ctx, extension, done.cookies ?? ctx.setCookies.slice(before), user.id), refused: null }
  } catch (error) {
    if (!(error instanceof AuthError) || !REFUSALS.has(error.type)) throw error
    report(ctx.config, error)
    await audit(ctx, { type: "signInFailed", outcome: "failure", method: identity.type, provider: identity.provider, reason: error.type })
    return { response: answer(ctx, await actionErrorResponse(flow, error)), userId: null, isNewUser: false, session: null, refused: errorCode(error) }
  }
}

/** The identity, checked: a malformed one is the extension's bug, not the browser's. */
function checked(ctx: RequestContext, id: string, identity: ExtensionIdentity): ExtensionIdentity & { email?: string } {
  const text = (value: unknown, max: number) => typeof value === "string" && value.length > 0 && value.length <= max
  if (!identity || !text(identity.provider, 128) || !text(identity.providerAccountId, 512) || (identity.type !== "oidc" && identity.type !== "saml")) {
    throw new InvalidConfig(`The ${id} extension signed in with a malformed identity (provider, providerAccountId and type "oidc" or "saml" are required)`)
  }
  // An extension's accounts must never pass for a configured provider's: its sign-in would skip that provider's checks.
  if (ctx.config.providerById.has(identity.provider)) throw new InvalidConfig(`The ${id} extension signed in with the provider id "${identity.provider}", which a configured provider has`)
  if (identity.email !== undefined && !text(identity.email, 320)) throw new InvalidConfig(`The ${id} extension signed in with a malformed email`)
  return identity.email === undefined ? identity : { ...identity, email: identity.email.trim().toLowerCase() }
}

/** The user of a first sign-in of this account (see the module's rules). */
async function userFor(ctx: RequestContext, identity: ExtensionIdentity): Promise<{ user: AdapterUser; isNewUser: boolean }> {
  const adapter = store(ctx.config.stores, "oauth")
  const email = identity.email
  // Only `true` vouches: a SAML attribute passed on as the string "false" must not.
  if (!email || identity.emailVerified !== true) {
    const owner = email ? await adapter.getUserByEmail(email) : null
    if (owner) throw new OAuthAccountNotLinked("The address belongs to a user, and the extension does not vouch for it", { providerId: identity.provider })
    throw new AccessDenied("An SSO sign-in makes a user only for an address the extension vouches for")
  }
  const fresh = { email, name: identity.name ?? null, image: identity.image ?? null }
  const owner = await adapter.getUserByEmail(email)
  // The gates before anything is written — a new user without an id; the owner by its id,
  // also an unverified one about to be replaced (a ban of it is not shed by verifying the
  // address) — so a refusal leaves no user or account.
  await admitSignIn(ctx, { ...(owner && { userId: owner.id }), email, provider: identity.provider })
  const { user, isNewUser } = owner
    ? owner.emailVerified
      ? { user: owner, isNewUser: false }
      : await replaceUnverifiedUser(ctx, owner, fresh)
    : await createUserOnce(ctx, { ...fresh, emailVerified: new Date() }, () => adapter.getUserByEmail(email))
  try {
    await linkOnce(ctx, identity, user)
  } catch (error) {
    // Adapters need not have transactions: a user made here and left without its account
    // would be half of a sign-in (and its `createUser` event a lie). A concurrent sign-in
    // that linked the account to this user made `linkOnce` succeed, so this user is ours.
    if (isNewUser) await removeUser(ctx, user.id)
    throw error
  }
  return { user, isNewUser }
}

/** Links the account to `user`; when a concurrent first sign-in of the same account linked it first (to this user), that link stands. */
async function linkOnce(ctx: RequestContext, identity: ExtensionIdentity, user: AdapterUser): Promise<void> {
  const adapter = store(ctx.config.stores, "oauth")
  const account = { provider: identity.provider, providerAccountId: identity.providerAccountId, type: identity.type, userId: user.id } as unknown as AdapterAccount
  try {
    await adapter.linkAccount(account)
  } catch (error) {
    if (!(error instanceof AdapterError)) throw error
    const winner = await awaitRow(() => Promise.resolve(adapter.getUserByAccount({ provider: identity.provider, providerAccountId: identity.providerAccountId }))).catch(() => null)
    if (winner?.id !== user.id) throw error
    return
  }
  await ctx.config.events.linkAccount({ user, account, profile: { id: identity.providerAccountId, email: user.email, name: user.name ?? null, image: user.image ?? null } })
  await audit(ctx, { type: "accountLinked", outcome: "success", userId: user.id, method: identity.type, provider: identity.provider })
}

/** An internal response as a route's answer: its cookies go on the answer (they hold the session token). */
function answer(ctx: RequestContext, internal: ResponseInternal): { redirect: string } {
  if (internal.cookies?.length) ctx.setCookies.push(...internal.cookies)
  return { redirect: internal.redirect ?? ctx.origin }
}

/** The session the cookies just made, as the extension sees it; `null` while a second factor is pending. */
async function madeSession(ctx: RequestContext, extension: ResolvedExtension, cookies: Cookie[], userId: string) {
  const made = await sessionOfCookies(ctx, cookies, userId)
  if (!made) return null
  const keys: Record<string, string> = {}
  for (const id of ctx.config.extensions.byId.keys()) keys[id] = await sessionKey(id, userId, made.id)
  return { userId, key: keys[extension.extension.id]!, keys, expires: new Date(Date.now() + ctx.config.session.maxAge * 1000) }
}

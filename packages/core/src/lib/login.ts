import type { AdapterUser } from "../adapters.js"
import { AccessDenied, AdapterError, AuthError } from "../errors.js"
import type { ResponseInternal } from "../base-types.js"
import type { SignInCallbackParams } from "../types.js"
import type { RequestContext } from "./context.js"
import { resolveCallbackUrl } from "./context.js"
import { sessionStrategy, type SignInResult } from "./session/index.js"
import { store, type AdapterWith } from "./config/stores.js"
import { secondFactorChallenge } from "./two-factor/step.js"
import { noticeNewDevice } from "./notify/index.js"
import { markSignIn } from "./step-up/sign-in.js"
import { audit } from "./audit/index.js"

/**
 * Runs the app's `signIn` callback. Returns a URL when the callback redirects the user
 * elsewhere, nothing when sign-in may go on; throws {@link AccessDenied} when it refuses
 * (a non-auth error it throws is kept as the cause, for the server log only).
 */
export async function runSignInCallback(ctx: RequestContext, params: SignInCallbackParams): Promise<string | undefined> {
  let result: boolean | string
  try {
    result = await ctx.config.callbacks.signIn(params)
  } catch (error) {
    if (error instanceof AuthError) throw error
    throw new AccessDenied((error as Error)?.message ?? "The signIn callback threw", error as Error)
  }
  if (typeof result === "string") {
    return ctx.config.callbacks.redirect({ url: result, baseUrl: ctx.origin })
  }
  if (!result) throw new AccessDenied("The signIn callback returned false")
  return undefined
}

/**
 * The shared last step of every sign-in: start the session, fire `signIn`, and send the
 * user on — to `pages.newUser` on their first sign-in when set, else to the callback URL.
 */
export async function establishSession(
  ctx: RequestContext,
  result: SignInResult,
  /** Set by the two-factor step once the second factor passed: the challenge's callback URL, the first factor's provider and the kind of code. */
  secondFactor?: { callbackUrl: string; provider?: string | undefined; used: "totp" | "backup" },
): Promise<ResponseInternal> {
  // An extension's gate (a ban) refuses here, before the second factor and again once the session exists.
  const gate = ctx.config.extensions.gate
  await gate?.(ctx, result)
  // Two-factor authentication: a user who has it on gets a challenge, not a session.
  if (!secondFactor && ctx.config.twoFactor) {
    const challenge = await secondFactorChallenge(ctx, result)
    if (challenge) return challenge
  }
  const cookies = await sessionStrategy(ctx).create(ctx, result)
  await gate?.(ctx, result, cookies)
  // A first factor was just proven: the new session may take sensitive actions for stepUp.maxAge.
  await markSignIn(ctx, cookies, result.user.id)
  await ctx.config.events.signIn({
    user: result.user,
    account: result.account,
    profile: result.profile,
    isNewUser: result.isNewUser,
  })
  await auditSignIn(ctx, result, secondFactor)
  await noticeNewDevice(ctx, result)
  const callbackUrl = secondFactor?.callbackUrl ?? (await resolveCallbackUrl(ctx))
  const { newUser } = ctx.config.pages
  if (result.isNewUser && newUser) {
    const target = new URL(newUser, ctx.origin)
    target.searchParams.set("callbackUrl", callbackUrl)
    return { redirect: target.href, cookies }
  }
  return { redirect: callbackUrl, cookies }
}

/** The `signIn` audit event: by which provider (the first factor's, after a second), and which code passed. */
async function auditSignIn(ctx: RequestContext, result: SignInResult, secondFactor: { provider?: string | undefined; used: "totp" | "backup" } | undefined): Promise<void> {
  const userId = result.user.id
  const providerId = secondFactor?.provider ?? result.account?.provider ?? ctx.providerId
  const provider = providerId === undefined ? undefined : ctx.config.providerById.get(providerId)
  // An identity an extension signed in (`req.signIn`, `sso:<connection>`) names no configured
  // provider: its account says which, here as after its second factor.
  const account = result.account
  const named = provider ? { method: provider.type, provider: provider.id } : account && account.provider === providerId && ((account.type as string) === "saml" || account.type === "oidc") ? { method: account.type, provider: account.provider } : undefined
  if (typeof userId !== "string" || !named) return
  const details = { isNewUser: !!result.isNewUser, ...(secondFactor && { secondFactor: secondFactor.used }) }
  await audit(ctx, { type: "signIn", outcome: "success", userId, ...named, details })
}

/**
 * Asks the extensions' sign-in gates before a sign-in writes anything — its new user (no
 * `userId`: nobody to look up yet), or an account or passkey it links to `userId` — and
 * throws their `AccountSuspended`, so a refusal leaves nothing behind, as Auth.js's `signIn`
 * callback refuses before the user exists. `establishSession` still asks them twice (before
 * and after the session), for every sign-in. A no-op without a gate.
 */
export async function admitSignIn(ctx: RequestContext, entrant: { userId?: string; email?: string | null | undefined; provider: string }): Promise<void> {
  await ctx.config.extensions.admit?.(entrant)
}

/** Creates a user through the adapter and fires `createUser`. */
export async function createUser(ctx: RequestContext, user: Omit<AdapterUser, "id"> & { id?: string }): Promise<AdapterUser> {
  const created = await store(ctx.config.stores, "users").createUser({ ...user, id: user.id ?? crypto.randomUUID() } as AdapterUser)
  await ctx.config.events.createUser({ user: created })
  return created
}

/**
 * Updates a user through the adapter and fires `updateUser` with the user the adapter
 * returned — every update of a user goes through here, so the event misses none (§6).
 */
export async function updateUser(
  ctx: RequestContext,
  adapter: AdapterWith<"updateUser">,
  patch: Partial<AdapterUser> & Pick<AdapterUser, "id">,
): Promise<AdapterUser> {
  const updated = await adapter.updateUser(patch)
  await ctx.config.events.updateUser({ user: updated })
  return updated
}

/**
 * {@link createUser} for a first sign-in that may race another one of the same person (a
 * double-click, two tabs, a retrying client): when the insert fails and `existing` then
 * finds the user, the other sign-in created it first — the unique constraint did its job —
 * and this one goes on with that user, as a returning one. When `existing` finds nothing
 * (or fails too), the insert's own error stands: then it was not a race.
 */
export async function createUserOnce(
  ctx: RequestContext,
  user: Omit<AdapterUser, "id"> & { id?: string },
  existing: () => PromiseLike<AdapterUser | null | undefined> | AdapterUser | null | undefined,
): Promise<{ user: AdapterUser; isNewUser: boolean }> {
  try {
    return { user: await createUser(ctx, user), isNewUser: true }
  } catch (error) {
    if (!(error instanceof AdapterError)) throw error
    const winner = await Promise.resolve(existing()).catch(() => null)
    if (!winner) throw error
    ctx.config.logger.debug("create_user_race_resolved", { userId: winner.id })
    return { user: winner, isNewUser: false }
  }
}

/**
 * Polls `read` until it finds something or `budgetMs` has passed: for a row another request
 * is about to write (its user exists, its account link is one statement away). Only failure
 * paths wait, so a sign-in that needs no waiting never pays for this.
 */
export async function awaitRow<T>(read: () => Promise<T | null | undefined>, budgetMs = 2_000): Promise<T | null> {
  const deadline = Date.now() + budgetMs
  for (let delay = 20; ; delay = Math.min(delay * 2, 250)) {
    const found = await read()
    if (found) return found
    if (Date.now() + delay > deadline) return null
    await new Promise((resolve) => setTimeout(resolve, delay))
  }
}

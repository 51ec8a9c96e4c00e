import type { AdapterUser } from "../adapters.js"
import { AccessDenied, AuthError } from "../errors.js"
import type { ResponseInternal, SignInCallbackParams } from "../types.js"
import type { RequestContext } from "./context.js"
import { resolveCallbackUrl } from "./context.js"
import { sessionStrategy, type SignInResult } from "./session/index.js"

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
export async function establishSession(ctx: RequestContext, result: SignInResult): Promise<ResponseInternal> {
  const cookies = await sessionStrategy(ctx).create(ctx, result)
  await ctx.config.events.signIn({
    user: result.user,
    account: result.account,
    profile: result.profile,
    isNewUser: result.isNewUser,
  })
  const callbackUrl = await resolveCallbackUrl(ctx)
  const { newUser } = ctx.config.pages
  if (result.isNewUser && newUser) {
    const target = new URL(newUser, ctx.origin)
    target.searchParams.set("callbackUrl", callbackUrl)
    return { redirect: target.href, cookies }
  }
  return { redirect: callbackUrl, cookies }
}

/** Creates a user through the adapter and fires `createUser`. */
export async function createUser(ctx: RequestContext, user: Omit<AdapterUser, "id"> & { id?: string }): Promise<AdapterUser> {
  const created = await ctx.config.adapter!.createUser!({ ...user, id: user.id ?? crypto.randomUUID() } as AdapterUser)
  await ctx.config.events.createUser({ user: created })
  return created
}

import { InvalidConfig, ReauthRequired, UnsupportedStrategy } from "../../errors.js"
import type { Cookie, Session } from "../../base-types.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { optionProblem } from "../config/problem.js"
import type { RequestContext } from "../context.js"
import { sessionStrategy } from "../session/index.js"
import { heldTokensOfRequest } from "../session/jwt.js"
import { accessTokenForUser } from "./account.js"
import { refreshableProvider } from "./provider.js"
import { accessTokenOf, needsRefresh } from "./jwt.js"
import type { AccessToken } from "./result.js"

/** Whose access token {@link getAccessToken} gets. */
export type AccessTokenParams = {
  /** The OAuth/OIDC provider id, e.g. `"google"`. */
  provider: string
} & (
  | {
      /** The user's id (database-backed accounts). */
      userId: string
    }
  | {
      /** A session whose `user.id` is set (database-backed accounts; the `session` callback must copy the id in). */
      session: Session | null
    }
  | {
      /**
       * The browser's request: its session cookie says who is signed in. The one form that
       * works for JWT sessions (`tokenRefresh.jwt`), where the tokens ride in the cookie.
       */
      request: Request
      /** Where a re-issued session cookie goes (JWT sessions): without it, the rotation is kept only by the next session check. */
      setCookie?: (cookie: Cookie) => void
    }
)

/** Builds the context of a `GET <basePath>/session` for `request`'s cookies (the runtime's parse step). */
export type SessionContextOf = (request: Request) => Promise<RequestContext>

/** See `getAccessToken` in `@portcullis/core` (the public entry, with its documentation). */
export async function accessToken(config: ResolvedConfig, params: AccessTokenParams, contextOf: SessionContextOf): Promise<AccessToken> {
  const problem = await optionProblem(config)
  if (problem) throw problem
  if (!params || typeof params !== "object" || typeof params.provider !== "string") {
    throw new InvalidConfig("getAccessToken needs { provider } and one of { userId }, { session } or { request }")
  }
  const provider = refreshableProvider(config, params.provider)
  if ("userId" in params) {
    if (typeof params.userId !== "string" || !params.userId) throw new InvalidConfig("getAccessToken: userId must be a non-empty string")
    return accessTokenForUser(config, provider, params.userId)
  }
  if ("session" in params) {
    if (config.session.strategy === "jwt") {
      throw new UnsupportedStrategy("getAccessToken({ session }) reads accounts from the adapter; with JWT sessions pass { request } (and turn on tokenRefresh.jwt)")
    }
    const id = (params.session?.user as { id?: unknown } | undefined)?.id
    if (!params.session) throw new ReauthRequired("Nobody is signed in", { reason: "signed_out", provider: provider.id })
    if (typeof id !== "string" || !id) {
      throw new InvalidConfig("getAccessToken({ session }): the session has no user.id; return it from the session callback, or pass { userId } or { request }")
    }
    return accessTokenForUser(config, provider, id)
  }
  if (!("request" in params) || !(params.request instanceof Request)) {
    throw new InvalidConfig("getAccessToken needs { provider } and one of { userId }, { session } or { request }")
  }
  const ctx = await contextOf(params.request)
  if (config.session.strategy === "database") {
    const userId = await sessionStrategy(ctx).currentUserId(ctx)
    if (!userId) throw new ReauthRequired("Nobody is signed in", { reason: "signed_out", provider: provider.id })
    return accessTokenForUser(config, provider, userId)
  }
  if (!config.tokenRefresh.jwt) {
    throw new UnsupportedStrategy("JWT sessions keep no provider tokens unless tokenRefresh.jwt is on (docs/tokens.md)")
  }
  const found = await heldTokensOfRequest(ctx)
  if (!found) throw new ReauthRequired("Nobody is signed in", { reason: "signed_out", provider: provider.id })
  for (const cookie of found.cookies) params.setCookie?.(cookie)
  if (found.failure) throw found.failure
  if (!found.held || found.held.provider !== provider.id) {
    throw new ReauthRequired(`This session was not signed in with "${provider.id}"`, { reason: "no_account", provider: provider.id })
  }
  // The refresh's own check: the tokens came back marked, or expired with no refresh token
  // (the others were rotated), and then it throws.
  needsRefresh(config, found.held)
  return accessTokenOf(found.held, found.refreshed)
}

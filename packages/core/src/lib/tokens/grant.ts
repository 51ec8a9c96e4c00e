import * as o from "oauth4webapi"
import { AuthError, ReauthRequired, TokenRefreshFailed } from "../../errors.js"
import type { TokenSet } from "../../base-types.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { authorizationServer } from "../oauth/endpoints.js"
import { safeCause } from "../oauth/failure.js"
import { backChannel } from "../oauth/provider.js"
import { normaliseTokens } from "../oauth/token.js"

/**
 * One refresh-token grant (RFC 6749 §6) at the provider's token endpoint — the configured
 * one, else the discovered one from the configuration's discovery cache — through
 * oauth4webapi, which also validates the response (and an id_token in it).
 *
 * @throws {@link ReauthRequired} (`invalid_grant`) when the provider refused the refresh
 * token; {@link TokenRefreshFailed} for everything that may heal on its own: no answer, a
 * timeout, a server error, any other error code.
 */
export async function refreshGrant(config: ResolvedConfig, provider: OAuthConfig<any>, refreshToken: string): Promise<TokenSet> {
  const started = Date.now()
  try {
    const channel = backChannel(config, provider)
    const metadata = await authorizationServer(channel)
    const response = await o.refreshTokenGrantRequest(metadata, channel.client, channel.clientAuth, refreshToken, channel.http)
    const tokens = await o.processRefreshTokenResponse(metadata, channel.client, response)
    return normaliseTokens(tokens)
  } catch (error) {
    throw refreshFailure(error, provider.id, Date.now() - started)
  }
}

function refreshFailure(error: unknown, providerId: string, ms: number): AuthError {
  if (error instanceof o.ResponseBodyError) {
    const details = { providerId, status: error.status, error: error.error, error_description: error.error_description?.slice(0, 300) }
    if (error.error === "invalid_grant") {
      return new ReauthRequired(`The provider "${providerId}" refused the refresh token (invalid_grant): the user must sign in again`, { ...details, reason: "invalid_grant", provider: providerId })
    }
    return new TokenRefreshFailed(`The token endpoint of "${providerId}" answered the refresh with ${error.error} (${error.status})`, details)
  }
  // Configuration problems (no client id, no endpoint) are not outages: say what to fix.
  if (error instanceof AuthError && error.type !== "InvalidEndpoints") return error
  const timeout = error instanceof Error && (error.name === "TimeoutError" || (error.cause as Error | undefined)?.name === "TimeoutError")
  const message = timeout
    ? `The refresh request to "${providerId}" timed out after ${ms} ms`
    : `The refresh request to "${providerId}" failed`
  return new TokenRefreshFailed(message, safeCause(error, { providerId, ms }))
}

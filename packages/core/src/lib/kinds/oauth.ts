import { AuthError, CallbackRouteError } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import type { Profile } from "../../base-types.js"
import { resolveCallbackUrl } from "../context.js"
import { authorizationUrl } from "../oauth/authorization.js"
import { callbackParams, handleAuthorizationResponse } from "../oauth/callback.js"
import { checkOAuthConfig } from "../oauth/config-check.js"
import { authorizationServer } from "../oauth/endpoints.js"
import { safeCause, signinFailure } from "../oauth/failure.js"
import { completeSignIn } from "../oauth/link.js"
import { mapProfile } from "../oauth/profile.js"
import { oauthRuntime } from "../oauth/provider.js"
import { proxyTarget } from "../oauth/proxy.js"
import { JSON_DEPTH_LIMIT, nestsWithin } from "../http/body.js"
import { refuseForgedLoopback } from "../origin-trust.js"
import type { ProviderKind } from "./kind.js"

/**
 * OAuth 2 and OpenID Connect (authorization code flow, through oauth4webapi).
 *
 * - `POST /signin/:id` (CSRF-checked by the action) remembers the callback URL, seals the
 *   checks into cookies and redirects to the provider.
 * - `GET /callback/:id` (`POST` for form_post providers, never CSRF-checked: the provider
 *   posts it) bounces to the original deployment when this one is the redirect proxy,
 *   else checks and redeems the response, maps the profile and signs the user in.
 */
export const oauthKind: ProviderKind<OAuthConfig<any>> = {
  // Each provider is checked when the configuration is resolved, like Auth.js's
  // `assertConfig`, so a broken one is a configuration error on every request rather than a
  // failure at its first sign-in; a plain-http endpoint allowed outside production is one
  // warning per provider.
  check(providers, { env, redirectProxyUrl, logger }) {
    let first: AuthError | undefined
    for (const provider of providers) {
      const { error, insecureUrl } = checkOAuthConfig(provider, env, redirectProxyUrl)
      if (error) first ??= error
      else if (insecureUrl) logger.warn("insecure-provider-endpoint", { provider: provider.id, url: insecureUrl })
    }
    return first
  },

  async signin(ctx, provider) {
    const rt = oauthRuntime(ctx, provider)
    refuseForgedLoopback(ctx)
    await ctx.config.rateLimit?.checkAddress("oauth", ctx.clientAddress)
    // Auth.js apps behind a proxy run like this; the provider's redirect URI registration
    // still refuses a forged host, but say so once (see lib/origin-trust.ts).
    if (!ctx.originTrusted) ctx.config.logger.warn("host-derived-redirect-uri")
    await resolveCallbackUrl(ctx, { remember: true })
    try {
      const metadata = await authorizationServer(rt)
      const { url, cookies } = await authorizationUrl(ctx, rt, metadata)
      return { redirect: url, cookies }
    } catch (error) {
      throw signinFailure(error, rt.id)
    }
  },

  async callback(ctx, provider) {
    const rt = oauthRuntime(ctx, provider)
    // The callback too: the attacker can rewrite redirect_uri in an authorization URL
    // started on any host, and then redeem the code under the forged loopback host.
    refuseForgedLoopback(ctx)
    const params = callbackParams(ctx, rt)
    const bounce = await proxyTarget(ctx, rt, params)
    if (bounce) return { redirect: bounce }
    try {
      const { profile, tokens } = await handleAuthorizationResponse(ctx, rt, params)
      if (rt.formPost) attachFirstSignInUser(profile, params)
      const mapped = await mapProfile(rt, profile, tokens)
      return await completeSignIn(ctx, rt, { mapped, profile, tokens })
    } catch (error) {
      if (error instanceof AuthError) throw error
      throw new CallbackRouteError(`The callback of "${rt.id}" failed`, safeCause(error, { providerId: rt.id }))
    }
  },
}

/**
 * Apple posts the user's name once, on the first authorization, as a JSON `user` form
 * field next to the code; the id_token never has it. It is exposed as `profile.user` for
 * the provider's `profile()`. It is unsigned: it may name the user, never identify them.
 */
function attachFirstSignInUser(profile: Profile, params: URLSearchParams): void {
  const raw = params.get("user")
  if (!raw || profile.user !== undefined) return
  try {
    const user: unknown = JSON.parse(raw)
    // Bounded as request bodies are: it reaches the app's callbacks, which may stringify it.
    if (user && typeof user === "object" && !Array.isArray(user) && nestsWithin(user, JSON_DEPTH_LIMIT)) profile.user = user
  } catch {
    // Not JSON: ignore it, as it only ever adds a display name.
  }
}

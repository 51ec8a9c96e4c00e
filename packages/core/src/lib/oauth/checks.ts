import * as o from "oauth4webapi"
import { InvalidCheck } from "../../errors.js"
import type { Cookie } from "../../base-types.js"
import { openCheck, sealCheck, type CheckName } from "../checks.js"
import type { RequestContext } from "../context.js"
import { expireCookie } from "../cookies.js"
import { requireTrustedOrigin } from "../origin-trust.js"
import type { Check, OAuthRuntime } from "./provider.js"
import { sealProxyState } from "./proxy.js"

/** The authorization request parameters a sign-in's checks add, and the cookies that remember them. */
export interface StartedChecks {
  params: Record<string, string>
  cookies: Cookie[]
}

/** The values the callback compares against, from the browser's check cookies. */
export interface ExpectedChecks {
  state?: string
  codeVerifier?: string
  nonce?: string
}

const cookieOf: Record<Check, CheckName> = { pkce: "pkceCodeVerifier", state: "state", nonce: "nonce" }

/**
 * Creates the provider's checks: a PKCE S256 challenge (sent whether or not discovery
 * lists `code_challenge_methods_supported`, so a stripped metadata document cannot
 * downgrade it), a state, and a nonce. Each value is sealed into its own cookie bound to
 * the provider. State and nonce cookies of form_post providers are `SameSite=None`, since
 * the provider's cross-site POST would not carry Lax cookies; PKCE stays Lax, as the
 * token request needs it only after the browser is back.
 */
export async function startChecks(ctx: RequestContext, rt: OAuthRuntime): Promise<StartedChecks> {
  const params: Record<string, string> = {}
  const cookies: Cookie[] = []
  const crossSite = { sameSiteNone: rt.formPost }
  if (rt.checks.has("pkce")) {
    const verifier = o.generateRandomCodeVerifier()
    params.code_challenge = await o.calculatePKCECodeChallenge(verifier)
    params.code_challenge_method = "S256"
    cookies.push(await sealCheck(ctx, "pkceCodeVerifier", verifier, rt.id))
  }
  if (rt.checks.has("state")) {
    const random = o.generateRandomState()
    // Behind a redirect proxy the state also tells the proxy where to send the browser back,
    // so the code will follow it: only a trusted origin may be sealed.
    if (rt.proxy && !rt.proxy.onProxy) requireTrustedOrigin(ctx, "Signing in through the redirect proxy")
    const state = rt.proxy && !rt.proxy.onProxy ? await sealProxyState(ctx, random, rt.callbackUrl) : random
    params.state = state
    cookies.push(await sealCheck(ctx, "state", state, rt.id, crossSite))
  }
  if (rt.checks.has("nonce")) {
    const nonce = o.generateRandomNonce()
    params.nonce = nonce
    cookies.push(await sealCheck(ctx, "nonce", nonce, rt.id, crossSite))
  }
  return { params, cookies }
}

/**
 * Opens the provider's check cookies. Every check cookie is deleted whatever happens, so a
 * failed or replayed callback leaves nothing to retry with; a missing, expired, tampered or
 * other-provider cookie is an {@link InvalidCheck}.
 */
export async function useChecks(ctx: RequestContext, rt: OAuthRuntime): Promise<ExpectedChecks> {
  const wanted = [...rt.checks]
  const opened = await Promise.allSettled(wanted.map((check) => openCheck(ctx, cookieOf[check], rt.id)))
  // Check cookies this provider does not use (left by another sign-in) go too.
  for (const name of Object.values(cookieOf)) {
    const cookie = ctx.cookieOptions[name]
    if (!wanted.some((c) => cookieOf[c] === name) && ctx.cookies[cookie.name]) {
      ctx.setCookies.push(expireCookie(cookie.name, cookie.options))
    }
  }
  const expected: ExpectedChecks = {}
  for (const [i, result] of opened.entries()) {
    if (result.status === "rejected") {
      throw result.reason instanceof InvalidCheck ? result.reason : new InvalidCheck(`The ${wanted[i]} check could not be read`, result.reason as Error)
    }
    const check = wanted[i]!
    if (check === "pkce") expected.codeVerifier = result.value.value
    else if (check === "state") expected.state = result.value.value
    else expected.nonce = result.value.value
  }
  return expected
}

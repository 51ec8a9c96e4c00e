import * as o from "oauth4webapi"
import { InvalidCheck, MethodNotAllowed, OAuthCallbackError } from "../../errors.js"
import type { Profile, TokenSet } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { useChecks } from "./checks.js"
import { authorizationServer } from "./endpoints.js"
import { callbackFailure } from "./failure.js"
import type { OAuthRuntime } from "./provider.js"
import { exchangeCode, normaliseTokens } from "./token.js"
import { readProfile } from "./userinfo.js"

/** The provider's answer, checked: the raw profile and the normalised token set. */
export interface OAuthCallbackResult {
  profile: Profile
  tokens: TokenSet
}

/**
 * The authorization response parameters: the query of a `GET`, or the form body of the
 * `POST` a `response_mode=form_post` provider makes. Each provider gets only its own
 * method, so a code meant to arrive in a POST body is never accepted from a URL.
 */
export function callbackParams(ctx: RequestContext, rt: OAuthRuntime): URLSearchParams {
  if (rt.formPost) {
    if (ctx.method !== "POST") throw new MethodNotAllowed(`The provider "${rt.id}" answers with form_post: its callback is a POST`)
    return new URLSearchParams(ctx.form ?? [])
  }
  if (ctx.method !== "GET") throw new MethodNotAllowed(`The callback of "${rt.id}" is a GET`)
  return new URLSearchParams(ctx.url.search)
}

/**
 * Checks the authorization response and redeems it. Order matters: the check cookies are
 * opened (and so deleted) first, so no failure below leaves them behind for a retry.
 */
export async function handleAuthorizationResponse(ctx: RequestContext, rt: OAuthRuntime, params: URLSearchParams): Promise<OAuthCallbackResult> {
  const expected = await useChecks(ctx, rt)

  // RFC 6749 §3.1: parameters must not repeat; a repeated `code` or `state` is an
  // injection attempt, and which copy "wins" differs between parsers.
  const names = [...params.keys()]
  const repeated = names.find((name, i) => names.indexOf(name) !== i)
  if (repeated) throw new OAuthCallbackError("A callback parameter is repeated", { providerId: rt.id, parameter: repeated.slice(0, 64) })
  if (params.has("code") && params.has("error")) throw new OAuthCallbackError("The callback carries both a code and an error", { providerId: rt.id })

  // The state is compared here, not left to oauth4webapi, so a mismatch is reported as the
  // failed check it is (InvalidCheck) rather than as a provider error.
  if (rt.checks.has("state") && params.get("state") !== expected.state) {
    throw new InvalidCheck(params.has("state") ? "The state does not match this browser's sign-in" : "The callback has no state", { providerId: rt.id })
  }

  let metadata: o.AuthorizationServer
  try {
    metadata = await authorizationServer(rt)
  } catch (error) {
    throw callbackFailure(error, rt.id, "discovery")
  }

  let validated: URLSearchParams
  try {
    // Checks the RFC 9207 `iss` (required when the server advertises it), turns an `error`
    // into an exception, and refuses implicit/hybrid responses.
    validated = o.validateAuthResponse(metadata, rt.client, params, expected.state ?? o.skipStateCheck)
  } catch (error) {
    throw callbackFailure(error, rt.id, "authorization response")
  }

  const exchanged = await exchangeCode(rt, metadata, validated, expected)
  const tokens = normaliseTokens(exchanged.tokens)
  const profile = await readProfile(rt, exchanged, tokens)
  return { profile, tokens }
}

import type * as o from "oauth4webapi"
import { InvalidEndpoints } from "../../errors.js"
import type { Cookie } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { startChecks } from "./checks.js"
import { assertSecureUrl } from "./http.js"
import type { OAuthRuntime } from "./provider.js"

/** Parameters only Portcullis sets: overriding them would break or bypass a check. */
const reserved = new Set(["client_id", "redirect_uri", "response_type", "state", "nonce", "code_challenge", "code_challenge_method"])

/**
 * Parameters the sign-in request's query may not set either: they change how the response
 * comes back (`response_mode`) or smuggle a whole second request (`request`, `request_uri`).
 * `callbackUrl` is ours, not the provider's.
 */
const reservedForQuery = new Set([...reserved, "response_mode", "request", "request_uri", "callbackUrl"])

/**
 * The authorization URL of a sign-in and the check cookies that go with it.
 *
 * Parameters, later ones winning: `response_type=code`, `client_id`, `redirect_uri`; the
 * provider's configured URL query and `params`; the query string of `POST /signin/:id`
 * (how `signIn(id, options, authorizationParams)` passes them, as in Auth.js); a default
 * `scope`; the checks. Reserved names are never taken from configuration or query.
 */
export async function authorizationUrl(
  ctx: RequestContext,
  rt: OAuthRuntime,
  metadata: o.AuthorizationServer,
): Promise<{ url: string; cookies: Cookie[] }> {
  const { provider } = rt
  const configured = typeof provider.authorization === "string" ? { url: provider.authorization } : (provider.authorization ?? {})
  const endpoint = configured.url ?? metadata.authorization_endpoint
  if (!endpoint) throw new InvalidEndpoints(`Provider "${rt.id}" has no authorization endpoint`)
  const url = new URL(endpoint)
  assertSecureUrl(url, rt.policy, "authorization endpoint")

  const params = new URLSearchParams({ response_type: "code", client_id: rt.client.client_id, redirect_uri: rt.redirectUri })
  for (const [key, value] of url.searchParams) if (!reserved.has(key)) params.set(key, value)
  for (const [key, value] of Object.entries(configured.params ?? {})) {
    if (!reserved.has(key) && value !== undefined && value !== null) params.set(key, stringify(value))
  }
  for (const [key, value] of ctx.url.searchParams) if (!reservedForQuery.has(key)) params.set(key, value)
  // A provider with a token exchange of its own may name the response type that exchange
  // takes (Azure DevOps: "Assertion"). Never one that puts a token in the redirect URL.
  const responseType = configured.params?.response_type
  if (typeof responseType === "string" && typeof provider.token === "object" && provider.token.request && !/token/i.test(responseType)) {
    params.set("response_type", responseType)
  }

  // As Auth.js: a provider that names no scope asks for the OIDC basics.
  if (!params.get("scope")) params.set("scope", "openid profile email")
  // An OIDC request without `openid` is a plain OAuth request: no id_token would come back.
  if (rt.type === "oidc" && !params.get("scope")!.split(" ").includes("openid")) {
    params.set("scope", `openid ${params.get("scope")}`)
  }

  const checks = await startChecks(ctx, rt)
  for (const [key, value] of Object.entries(checks.params)) params.set(key, value)
  url.search = params.toString()
  return { url: url.href, cookies: checks.cookies }
}

/** `claims` and other structured parameters are sent as JSON, as Auth.js does. */
function stringify(value: unknown): string {
  return typeof value === "object" ? JSON.stringify(value) : String(value)
}

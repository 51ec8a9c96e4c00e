/**
 * `req.oidc` (`api.ts`): core's OpenID Connect relying party for a provider an
 * extension names at run time — an organization's own IdP — with every protection a
 * configured OIDC provider has (`lib/oauth/`): the hardened back channel, PKCE S256, state and
 * nonce in sealed cookies bound to the browser and to the client's id, RFC 9207 `iss`, the ID
 * token's signature, issuer, audience, expiry and nonce. Loaded with `import()` on first use.
 *
 * The providers built here are remembered per configuration (`ResolvedExtensions.oidc`), so
 * discovered metadata is reused as it is for configured providers (an hour), and a changed
 * connection (another issuer or secret) is another provider.
 * @module
 */
import { InvalidConfig } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import type { RequestContext } from "../context.js"
import { authorizationUrl } from "../oauth/authorization.js"
import { callbackParams, handleAuthorizationResponse } from "../oauth/callback.js"
import { authorizationServer } from "../oauth/endpoints.js"
import { signinFailure } from "../oauth/failure.js"
import { backChannel, type OAuthRuntime } from "../oauth/provider.js"
import { sha256Hex } from "../crypto.js"
import type { ExtensionOidcClient, ExtensionOidcResult } from "./api.js"

/** Clients remembered per configuration; beyond this the oldest is forgotten (its discovery is redone). */
const REMEMBERED = 500

const ID = /^[a-z0-9][a-z0-9-]{0,63}$/

export async function authorize(ctx: RequestContext, client: ExtensionOidcClient, options: { loginHint?: string } = {}): Promise<string> {
  const rt = await runtime(ctx, client)
  // The sign-in request's own query is the extension's business, never the IdP's parameters.
  const bare = { ...ctx, url: new URL(ctx.url.origin + ctx.url.pathname) } as RequestContext
  const hinted = typeof options.loginHint === "string" && options.loginHint.length <= 320 ? { ...rt, provider: withParam(rt.provider, "login_hint", options.loginHint) } : rt
  let url: string
  try {
    const { url: found, cookies } = await authorizationUrl(bare, hinted, await authorizationServer(rt))
    ctx.setCookies.push(...cookies)
    url = found
  } catch (error) {
    throw signinFailure(error, client.id)
  }
  return url
}

export async function callback(ctx: RequestContext, client: ExtensionOidcClient): Promise<ExtensionOidcResult> {
  const rt = await runtime(ctx, client)
  const { profile } = await handleAuthorizationResponse(ctx, rt, callbackParams(ctx, rt))
  const claims = profile as Record<string, unknown>
  // The ID token's claims were verified (issuer, audience, signature, nonce): `sub` and `iss` are there.
  if (typeof claims.sub !== "string" || typeof claims.iss !== "string") throw new InvalidConfig(`The IdP of ${client.id} sent an ID token without sub or iss`)
  return { claims: claims as ExtensionOidcResult["claims"] }
}

/** The runtime of `client` for this request, its provider remembered per configuration. */
async function runtime(ctx: RequestContext, client: ExtensionOidcClient): Promise<OAuthRuntime> {
  const provider = await providerOf(ctx, client)
  const channel = backChannel(ctx.config, provider)
  // The extension's callback route, never core's `/callback/<id>` or a redirect proxy: the
  // IdP registers this URI, and the checks are always all three.
  return {
    ...channel,
    checks: new Set(["pkce", "state", "nonce"]),
    formPost: false,
    callbackUrl: client.redirectUri,
    signinUrl: client.redirectUri,
    redirectUri: client.redirectUri,
    proxy: undefined,
  }
}

async function providerOf(ctx: RequestContext, client: ExtensionOidcClient): Promise<OAuthConfig<any>> {
  if (!client || typeof client.id !== "string" || !ID.test(client.id)) throw new InvalidConfig("An extension's OIDC client needs an id of a-z, 0-9 and -")
  if (ctx.config.providerById.has(client.id)) throw new InvalidConfig(`An extension's OIDC client may not take the id "${client.id}" of a configured provider`)
  for (const [name, value] of [["issuer", client.issuer], ["clientId", client.clientId], ["redirectUri", client.redirectUri]] as const) {
    if (typeof value !== "string" || !value) throw new InvalidConfig(`The OIDC client ${client.id} has no ${name}`)
  }
  const remembered = ctx.config.extensions.oidc
  const key = `${client.id}\n${client.issuer}\n${client.clientId}\n${client.scope ?? ""}\n${client.clientSecret === undefined ? "" : await sha256Hex(client.clientSecret)}`
  const known = remembered.get(key)
  if (known) return known as OAuthConfig<any>
  const provider = {
    id: client.id,
    name: client.id,
    type: "oidc",
    issuer: client.issuer,
    clientId: client.clientId,
    ...(client.clientSecret !== undefined ? { clientSecret: client.clientSecret } : { client: { token_endpoint_auth_method: "none" } }),
    checks: ["pkce", "state", "nonce"],
    authorization: { params: { scope: client.scope ?? "openid email profile" } },
  } as unknown as OAuthConfig<any>
  if (remembered.size >= REMEMBERED) remembered.delete(remembered.keys().next().value!)
  remembered.set(key, provider)
  return provider
}

/** `provider` with one more authorization parameter; the same discovery (the cache is keyed by the original). */
function withParam(provider: OAuthConfig<any>, name: string, value: string): OAuthConfig<any> {
  const authorization = provider.authorization as { params: Record<string, string> }
  return { ...provider, authorization: { ...authorization, params: { ...authorization.params, [name]: value } } } as OAuthConfig<any>
}

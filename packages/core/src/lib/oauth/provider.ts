import * as o from "oauth4webapi"
import { InvalidConfig } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import { customFetch } from "../../symbols.js"
import { envProviderId } from "../config/env.js"
import { providerUrls, type RequestContext } from "../context.js"
import type { DiscoveryCache } from "./discovery-cache.js"
import { resolveChecks, type Check } from "./config-check.js"
import { allowsHttp, backChannelFetch, httpPolicy, type HttpPolicy } from "./http.js"

/** Where the provider redirects the browser, when a redirect proxy is in use. */
export interface RedirectProxy {
  /** `<redirectProxyUrl>/callback/<id>`: the one redirect URI registered with the provider. */
  callbackUrl: string
  /** Whether this deployment is the proxy itself. */
  onProxy: boolean
}

export type { Check }

/** Everything the OAuth steps need about one provider, for one request. */
export interface OAuthRuntime {
  provider: OAuthConfig<any>
  id: string
  type: "oauth" | "oidc"
  checks: ReadonlySet<Check>
  /** Whether the provider answers with `response_mode=form_post` (a cross-site POST). */
  formPost: boolean
  /** This deployment's callback URL. */
  callbackUrl: string
  signinUrl: string
  /** The `redirect_uri` sent in both the authorization and the token request. */
  redirectUri: string
  proxy: RedirectProxy | undefined
  /** The configuration's cache of discovered metadata. */
  discovery: DiscoveryCache
  /** The provider's fetch (its `customFetch`, else the app's), hardened for the back channel. */
  fetch: typeof fetch
  /** Which endpoints may be plain http (see `HttpPolicy`). */
  policy: HttpPolicy
  /** The same fetch and http policy in the form oauth4webapi takes. */
  http: { [o.customFetch]: (url: string, init: any) => Promise<Response>; [o.allowInsecureRequests]?: boolean }
  client: o.Client
  clientAuth: o.ClientAuth
}

/** What talking to a provider's back channel needs, with no request in sight (token refresh). */
export type BackChannel = Pick<OAuthRuntime, "provider" | "id" | "type" | "discovery" | "fetch" | "policy" | "http" | "client" | "clientAuth">

/**
 * The provider's back channel for a configuration: its fetch hardened (https policy,
 * timeout, no redirects, size cap), the client and its authentication. Throws
 * `InvalidConfig` on a provider without a client id or the secret its method needs.
 */
export function backChannel(config: Pick<RequestContext["config"], "fetch" | "env" | "discovery" | "telemetry">, provider: OAuthConfig<any>): BackChannel {
  if (!provider.clientId) {
    throw new InvalidConfig(`The provider "${provider.id}" has no clientId (set it, or AUTH_${envProviderId(provider.id)}_ID)`)
  }
  const base = provider[customFetch] ?? config.fetch
  const policy = httpPolicy(config.env, provider.allowInsecureLoopback)
  // Discovery, token, userinfo and JWKS requests all pass here: a client span each when traced.
  const fetch = config.telemetry.outbound(backChannelFetch(base, { timeout: provider.timeout, policy }), "oauth")
  return {
    provider,
    id: provider.id,
    type: provider.type,
    discovery: config.discovery,
    fetch,
    policy,
    http: { [o.customFetch]: fetch, ...(allowsHttp(policy) && { [o.allowInsecureRequests]: true }) },
    client: { ...provider.client, client_id: provider.clientId },
    clientAuth: clientAuthentication(provider),
  }
}

/** Builds the per-request view of an OAuth/OIDC provider; throws `InvalidConfig` on a bad one. */
export function oauthRuntime(ctx: RequestContext, provider: OAuthConfig<any>): OAuthRuntime {
  const { signinUrl, callbackUrl } = providerUrls(ctx, provider)
  const channel = backChannel(ctx.config, provider)
  const formPost = authorizationParam(provider, "response_mode") === "form_post"
  const proxy = formPost ? undefined : redirectProxy(ctx, provider)
  const checks = resolveChecks(provider, proxy !== undefined)
  return {
    ...channel,
    checks,
    formPost,
    callbackUrl,
    signinUrl,
    redirectUri: proxy && !proxy.onProxy ? proxy.callbackUrl : callbackUrl,
    proxy,
  }
}

function redirectProxy(ctx: RequestContext, provider: OAuthConfig<any>): RedirectProxy | undefined {
  const base = provider.redirectProxyUrl ?? ctx.config.redirectProxyUrl
  if (!base) return undefined
  let url: URL
  try {
    url = new URL(`${base.replace(/\/+$/, "")}/callback/${encodeURIComponent(provider.id)}`)
  } catch {
    throw new InvalidConfig(`redirectProxyUrl is not an absolute URL: ${JSON.stringify(base)}`)
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new InvalidConfig("redirectProxyUrl must be an http(s) URL")
  return { callbackUrl: url.href, onProxy: url.origin === ctx.origin }
}

function clientAuthentication(provider: OAuthConfig<any>): o.ClientAuth {
  const method = provider.client?.token_endpoint_auth_method ?? (provider.clientSecret ? "client_secret_basic" : "none")
  if (method === "none") return o.None()
  if (method === "private_key_jwt") {
    const key = typeof provider.token === "object" ? provider.token.clientPrivateKey : undefined
    if (!key) throw new InvalidConfig(`The provider "${provider.id}" uses private_key_jwt but has no token.clientPrivateKey`)
    // As Auth.js: the assertion's audience is both the issuer and the token endpoint, which
    // providers set up for Auth.js expect.
    return (as, client, body, headers) =>
      o.PrivateKeyJwt(key, {
        [o.modifyAssertion](_header, payload) {
          payload.aud = [as.issuer, as.token_endpoint].filter((v): v is string => typeof v === "string")
        },
      })(as, client, body, headers)
  }
  if (method !== "client_secret_basic" && method !== "client_secret_post" && method !== "client_secret_jwt") {
    throw new InvalidConfig(`Provider "${provider.id}": token_endpoint_auth_method ${JSON.stringify(method)} is not supported`)
  }
  if (!provider.clientSecret) {
    throw new InvalidConfig(`The provider "${provider.id}" uses ${method} but has no clientSecret (set it, or AUTH_${envProviderId(provider.id)}_SECRET)`)
  }
  if (method === "client_secret_jwt") return o.ClientSecretJwt(provider.clientSecret)
  return method === "client_secret_post" ? o.ClientSecretPost(provider.clientSecret) : o.ClientSecretBasic(provider.clientSecret)
}

/** A parameter of the configured authorization endpoint, from its `params` or its URL. */
function authorizationParam(provider: OAuthConfig<any>, name: string): string | undefined {
  const authorization = provider.authorization
  if (!authorization) return undefined
  if (typeof authorization === "string") return safeUrl(authorization)?.searchParams.get(name) ?? undefined
  const value = authorization.params?.[name]
  if (value !== undefined && value !== null) return String(value)
  return authorization.url ? (safeUrl(authorization.url)?.searchParams.get(name) ?? undefined) : undefined
}

function safeUrl(value: string): URL | undefined {
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}

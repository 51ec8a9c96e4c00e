/**
 * OAuth 2 and OpenID Connect provider types. Presets (`@portcullis/core/providers/github`,
 * …) return these; a custom provider is a plain object of this shape.
 *
 * @example
 * ```ts
 * import type { OIDCConfig } from "@portcullis/core/providers/oauth"
 *
 * const Corp: OIDCConfig<{ sub: string; email: string }> = {
 *   id: "corp", name: "Corp SSO", type: "oidc",
 *   issuer: "https://sso.corp.example",
 *   clientId: process.env.CORP_ID, clientSecret: process.env.CORP_SECRET,
 * }
 * ```
 * @module
 */
import type { Account, Awaitable, Profile, TokenSet, User } from "../base-types.js"
import type { CommonProviderOptions } from "../base-types.js"
import type { customFetch } from "../symbols.js"

export type { OAuthProviderId } from "./provider-types.js"

/** Checks bound to the browser during an OAuth round trip. */
export type OAuthChecks = "pkce" | "state" | "nonce" | "none"

/** Client settings (RFC 7591 names), e.g. `token_endpoint_auth_method`. */
export interface OAuthClientSettings {
  /**
   * How the client authenticates at the token endpoint. `client_secret_jwt` signs an
   * assertion with `clientSecret`; `private_key_jwt` with `token.clientPrivateKey` (its
   * audience is the issuer and the token endpoint, as Auth.js sends it).
   */
  token_endpoint_auth_method?: "client_secret_basic" | "client_secret_post" | "client_secret_jwt" | "private_key_jwt" | "none"
  id_token_signed_response_alg?: string
  userinfo_signed_response_alg?: string
  [key: string]: unknown
}

/** Context handed to a custom endpoint `request` function. */
export interface EndpointRequestContext<P> {
  provider: OAuthConfigInternal<P>
  tokens: TokenSet
  /** The provider's fetch (honours `customFetch`). */
  fetch: typeof fetch
}

/** An endpoint given as a URL, or as a URL with extra parameters and/or a custom request. */
export interface EndpointHandler<P, Context = EndpointRequestContext<P>, Result = unknown> {
  url?: string
  params?: Record<string, unknown>
  request?: (context: Context) => Awaitable<Result>
}

/** The authorization endpoint. */
export type AuthorizationEndpoint = string | { url?: string; params?: Record<string, unknown> }

/** The authorization endpoint given as an object: its URL and/or extra query parameters. */
export type AuthorizationEndpointHandler = Exclude<AuthorizationEndpoint, string>

/** The token endpoint. `conform` may rewrite a provider's non-standard response. */
export type TokenEndpoint<P> =
  | string
  | (EndpointHandler<
      P,
      {
        provider: OAuthConfigInternal<P>
        params: URLSearchParams
        checks: Record<string, string | undefined>
        /** The provider's fetch (honours `customFetch`; https only, bounded, no redirects). */
        fetch: typeof fetch
        /** The `redirect_uri` the authorization request carried (the redirect proxy's, behind one). */
        redirectUri: string
      },
      TokenSet
    > & {
      conform?: (response: Response) => Awaitable<Response | undefined>
      /** The key `private_key_jwt` signs client assertions with (a `CryptoKey`, or `{ key, kid }`). */
      clientPrivateKey?: CryptoKey | { key: CryptoKey; kid?: string }
    })

/** The token endpoint given as an object: URL, parameters, a custom `request`, `conform`… */
export type TokenEndpointHandler<P = Profile> = Exclude<TokenEndpoint<P>, string>

/** The userinfo endpoint, or a custom request that returns the profile. */
export type UserinfoEndpoint<P> = string | EndpointHandler<P, EndpointRequestContext<P>, Profile | Record<string, unknown>>

/** The userinfo endpoint given as an object: URL, parameters and/or a custom `request`. */
export type UserinfoEndpointHandler<P = Profile> = Exclude<UserinfoEndpoint<P>, string>

/** The endpoints a provider may configure: the keys of `authorization`, `token` and `userinfo`. */
export type OAuthEndpointType = "authorization" | "token" | "userinfo"

/** Maps a provider's profile to the user Portcullis stores. Must return a stable `id`. */
export type ProfileCallback<P> = (profile: P, tokens: TokenSet) => Awaitable<User & { id?: string }>

/** Chooses which token fields are stored on the account. */
export type AccountCallback = (tokens: TokenSet) => Partial<Account> | undefined | void

/** Button look on the built-in sign-in page. */
export interface ProviderStyle {
  logo?: string
  bg?: string
  text?: string
  brandColor?: string
}

/** {@link ProviderStyle} under Auth.js's name. */
export type OAuthProviderButtonStyles = ProviderStyle

/** An OAuth 2 provider. */
export interface OAuth2Config<P> extends CommonProviderOptions {
  type: "oauth"
  /** Issuer; with it, endpoints not given are discovered. */
  issuer?: string
  /** Discovery document URL, when it is not `<issuer>/.well-known/openid-configuration`. */
  wellKnown?: string
  authorization?: AuthorizationEndpoint
  token?: TokenEndpoint<P>
  userinfo?: UserinfoEndpoint<P>
  /** Default `["pkce", "state"]` (Auth.js: `["pkce"]`). */
  checks?: OAuthChecks[]
  clientId?: string
  clientSecret?: string
  client?: OAuthClientSettings
  profile?: ProfileCallback<P>
  account?: AccountCallback
  style?: ProviderStyle
  /**
   * Sign a user in with this provider when an account with the same email exists but is
   * not linked. Only safe with providers that verify addresses.
   */
  allowDangerousEmailAccountLinking?: boolean
  redirectProxyUrl?: string
  /**
   * Milliseconds each back-channel request (discovery, JWKS, token, userinfo) may take
   * before it is abandoned and the sign-in fails. Default 10000.
   */
  timeout?: number
  /**
   * Allow `http://` endpoints on loopback hosts (`localhost`, `127.0.0.0/8`, `[::1]`) in
   * production too, e.g. a sidecar identity provider. Without it, plain http is allowed on
   * any host in development (`NODE_ENV` `"development"` or `"test"`, as in Auth.js) and on
   * loopback hosts whenever `NODE_ENV` is not `"production"`, with a warning; anything else
   * (another host with `NODE_ENV` unset included) is a configuration error.
   */
  allowInsecureLoopback?: boolean
  /** OIDC: read the profile from the id_token (default) rather than userinfo. */
  idToken?: boolean
  options?: OAuthUserConfig<P>
  [customFetch]?: typeof fetch
}

/** An OpenID Connect provider: discovery, id_token validation and `nonce` included. */
export interface OIDCConfig<P> extends Omit<OAuth2Config<P>, "type" | "options"> {
  type: "oidc"
  options?: OAuthUserConfig<P>
}

/** Either kind. */
export type OAuthConfig<P = Profile> = OAuth2Config<P> | OIDCConfig<P>

/** What a user passes to a preset: any field, all optional. */
export type OAuthUserConfig<P> = Omit<Partial<OAuth2Config<P>>, "options" | "type"> & {
  [customFetch]?: typeof fetch
}

/** The spec's name for a preset's user options. */
export type OIDCUserConfig<P> = OAuthUserConfig<P>

/** A provider after normalisation: endpoints as objects, callback URL known. */
export type OAuthConfigInternal<P> = Omit<OAuth2Config<P>, "type" | "authorization" | "token" | "userinfo"> & {
  type: "oauth" | "oidc"
  authorization?: { url: URL }
  token?: { url?: URL; request?: unknown; conform?: unknown }
  userinfo?: { url?: URL; request?: unknown }
  callbackUrl: string
  signinUrl: string
  checks: OAuthChecks[]
}

/** An OpenID Connect provider after normalisation. */
export type OIDCConfigInternal<P> = OAuthConfigInternal<P> & { type: "oidc" }

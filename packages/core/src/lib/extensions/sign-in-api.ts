/**
 * The sign-in facets of the extension API: `req.signIn` (make a session for an identity the
 * extension verified — an SSO assertion) and `req.oidc` (a relying party for an OpenID
 * provider named at run time — an organization's IdP). A leaf: types only; the code
 * (`sign-in.ts`, `oidc.ts`) is loaded with `import()` on the first call.
 * @module
 */
import type { ExtensionResponse, ExtensionSession } from "./api.js"

/** An identity an extension verified, to sign in as. */
export interface ExtensionIdentity {
  /**
   * The account's provider as stored (`sso:<connection id>`): the adapter's
   * `getUserByAccount({ provider, providerAccountId })` finds the user on later sign-ins.
   * Must not be the id of a configured provider.
   */
  provider: string
  /** Stable per user at that provider (the SAML NameID, the OIDC `sub`). */
  providerAccountId: string
  /** `"oidc"` for an OpenID Connect IdP, `"saml"` for a SAML one (stored as the account's `type`). */
  type: "oidc" | "saml"
  /** The address the IdP asserts, when it asserts one. */
  email?: string
  /**
   * Whether the extension vouches for `email` (an address of a domain the organization
   * verified). Only a vouched-for address creates a user with a verified email, or links
   * the account to an existing user of that address; otherwise a new address is refused
   * (`OAuthAccountNotLinked`'s rule for an address that belongs to someone).
   */
  emailVerified: boolean
  name?: string | null
  image?: string | null
  /** Where to land: a URL of the app, passed through the `redirect` callback. Default: the callback-url cookie, else the site root. */
  callbackUrl?: string
  /** The IdP's profile (claims, attributes), for the `signIn` callback and events as `profile`. */
  profile?: Record<string, unknown>
}

/** What `req.signIn` did. */
export interface ExtensionSignInOutcome {
  /** The route's answer: a redirect (to the callback URL, `pages.newUser`, the two-factor step, or the sign-in page with an error). */
  response: ExtensionResponse
  /** The user signed in, once a session exists or a second factor is asked for; `null` when refused. */
  userId: string | null
  isNewUser: boolean
  /**
   * The new session as this extension sees it, with its key for every configured extension
   * (`keys.organizations`: to set the organization it lands in); `null` while a second factor
   * is pending or when refused.
   */
  session: (ExtensionSession & { keys: Readonly<Record<string, string>> }) | null
  /** Why the sign-in was refused (an error type: `AccessDenied`, `OAuthAccountNotLinked`, `AccountSuspended`), else `null`. */
  refused: string | null
}

/** `req.signIn`. A refusal is not thrown: it is `refused`, with `response` the sign-in page naming the error. Store failures are thrown (503). */
export type ExtensionSignIn = (identity: ExtensionIdentity) => Promise<ExtensionSignInOutcome>

/** An OpenID Connect client the extension names per call. */
export interface ExtensionOidcClient {
  /** Names the checks' cookies and the log lines: stable per connection (`sso-<connection id>`), `a-z0-9-`. */
  id: string
  issuer: string
  clientId: string
  /** `client_secret_basic` with it; a public client (PKCE only) without. */
  clientSecret?: string
  /** Default `openid email profile`. */
  scope?: string
  /** The callback route of the extension that will call `callback` (`${authUrl}/sso/oidc/<id>/callback`). */
  redirectUri: string
}

/** What `oidc.callback` verified. */
export interface ExtensionOidcResult {
  /** The ID token's claims merged with userinfo's (`sub` always equal). */
  claims: Record<string, unknown> & { sub: string; iss: string }
}

/**
 * A relying party with core's protections for OAuth/OIDC providers: discovery through the
 * hardened back channel (https outside development, timeouts, no redirects, size caps),
 * PKCE S256, state and nonce in sealed cookies bound to the browser and to `client.id`,
 * RFC 9207 `iss`, ID token signature, issuer, audience, expiry and nonce.
 */
export interface ExtensionOidc {
  /** The authorization URL to redirect to; the checks' cookies are set on the route's answer. `loginHint` is passed as `login_hint`. */
  authorize(client: ExtensionOidcClient, options?: { loginHint?: string }): Promise<string>
  /**
   * Checks the authorization response of this request (its query) and redeems the code.
   * @throws `InvalidCheck`, `OAuthCallbackError` (client-caused: a 400 the caller may show as a sign-in error).
   */
  callback(client: ExtensionOidcClient): Promise<ExtensionOidcResult>
}

/**
 * The WebAuthn provider's configuration shapes, apart from the provider function
 * (`providers/webauthn.ts`, which re-exports them): that function brings the WebAuthn kind's
 * loader, so the modules that only read a provider's fields import this leaf instead.
 * @module
 */
import type {
  GenerateAuthenticationOptionsOpts,
  GenerateRegistrationOptionsOpts,
  VerifyAuthenticationResponseOpts,
  VerifyRegistrationResponseOpts,
} from "@simplewebauthn/server"
import type { Adapter, AdapterUser } from "../../adapters.js"
import type { Awaitable, CommonProviderOptions } from "../../base-types.js"

/** How long the browser may take for a ceremony, and how long its challenge stays valid: 5 minutes. */
export const DEFAULT_WEBAUTHN_TIMEOUT = 5 * 60 * 1000

/** The `type` of every WebAuthn provider. */
export type WebAuthnProviderType = "webauthn"

/**
 * The relying party, i.e. your site as the authenticator sees it. Each value defaults to
 * the site's origin (`AUTH_URL`, or the trusted request host): `id` to its hostname,
 * `name` to its host, `origin` to the origin itself.
 */
export interface RelyingParty {
  /** Domain the credentials are scoped to, e.g. `example.com` (also valid for subdomains). With a list, the first is used for new ceremonies and all are accepted. */
  id?: string | string[]
  /** Name the browser may show, e.g. `Example`. With a list, the first is used. */
  name?: string | string[]
  /** Origins a response may come from, exactly, e.g. `https://example.com`. With a list, any of them is accepted. */
  origin?: string | string[]
}

/** What the WebAuthn hooks get about the configuration (a subset of Auth.js's internal options). */
export interface WebAuthnHookOptions {
  /** This provider, resolved. */
  provider: WebAuthnConfig
  /** The site's auth URL (origin plus base path, e.g. `https://app.example/auth`), from `AUTH_URL` or the trusted host. */
  url: URL
  basePath: string
  /** The configuration's adapter (wrapped: failures are `AdapterError`s). */
  adapter: Adapter | undefined
}

/** What the WebAuthn hooks get about the request. */
export interface WebAuthnHookRequest {
  /** The request URL, with the site's origin. */
  url: URL
  method: string
  headers: Headers
  query: Record<string, string>
  body: Record<string, unknown> | undefined
  cookies: Record<string, string>
}

/** The relying party of one ceremony, as {@link WebAuthnFields.getRelayingParty} returns it. */
export interface RelayingPartyOfRequest {
  id: string
  name: string
  origin: string
}

/** {@link RelayingPartyOfRequest} under Auth.js's (mis)spelling: the relying party of one ceremony. */
export type RelayingParty = RelayingPartyOfRequest

/** Who asks for passkey options, as {@link WebAuthnFields.getUserInfo} returns it. */
export interface WebAuthnUserInfo {
  user: Partial<AdapterUser> & { email: string }
  /** Whether the user is stored already (then: authenticate; else: register). */
  exists: boolean
}

/** The type of {@link WebAuthnFields.getUserInfo}: who asks for options, or `null` for nobody known. */
export type GetUserInfo = (options: WebAuthnHookOptions, request: WebAuthnHookRequest) => Awaitable<WebAuthnUserInfo | null>

/** One input of the built-in sign-in form's passkey section. */
export interface WebAuthnFormField {
  label?: string
  required?: boolean
  autocomplete?: string
}

/** The named fields of {@link WebAuthnConfig}, without its index signature. */
export interface WebAuthnFields extends CommonProviderOptions {
  type: WebAuthnProviderType
  /** Relying party; every part defaults from the site URL. (Spelled as in Auth.js.) */
  relayingParty?: RelyingParty
  /**
   * Offer passkeys in the email field's autofill on the built-in page (conditional UI).
   * Needs a form field whose `autocomplete` contains `webauthn`. Default `true`.
   */
  enableConditionalUI?: boolean
  /** Inputs of the built-in form. Default: one required `email` field (`autocomplete="username webauthn"`). */
  formFields?: Record<string, WebAuthnFormField>
  /** Passed to `generateRegistrationOptions`; `rpID`, `rpName`, `userName`, `userID` and `challenge` are always set by Portcullis. */
  registrationOptions?: Partial<GenerateRegistrationOptionsOpts>
  /** Passed to `generateAuthenticationOptions`; `rpID`, `allowCredentials` and `challenge` are always set by Portcullis. */
  authenticationOptions?: Partial<GenerateAuthenticationOptionsOpts>
  /** Only `requireUserVerification` and `supportedAlgorithmIDs` are read; the expected challenge, origin and RP id always come from Portcullis. */
  verifyRegistrationOptions?: Pick<Partial<VerifyRegistrationResponseOpts>, "requireUserVerification" | "supportedAlgorithmIDs">
  /** Only `requireUserVerification` is read; the expected challenge, origin, RP id and credential always come from Portcullis. */
  verifyAuthenticationOptions?: Pick<Partial<VerifyAuthenticationResponseOpts>, "requireUserVerification">
  /**
   * The relying party of a ceremony, as in Auth.js: `{ id, name, origin }` for this
   * request. Default: {@link relayingParty}, else the site's URL (`options.url`). Its
   * `id` and `origin` are what every response must match — derive them from trusted
   * configuration, never from request headers a phishing proxy controls.
   */
  getRelayingParty?: (options: WebAuthnHookOptions, request: WebAuthnHookRequest) => Awaitable<RelayingPartyOfRequest>
  /**
   * Who asks for options when nobody is signed in, as in Auth.js: `null` for nobody known,
   * else the user (an email at least) and whether they are stored. Default: the `email`
   * query parameter, looked up by the adapter. Portcullis still checks the store: a
   * registration is refused for an address that has an account, whatever this returns.
   */
  getUserInfo?: GetUserInfo
  /** Auth.js loaded its browser script from a CDN at this version; Portcullis ships the script itself, so the value is only checked (a semver-like version, at configuration time) and otherwise unused. */
  simpleWebAuthnBrowserVersion?: string
}

/** A WebAuthn provider, as resolved from {@link WebAuthn}'s defaults and your options. */
export interface WebAuthnConfig extends WebAuthnFields {
  [key: string]: unknown
}

/**
 * What you pass to {@link WebAuthn}: any field of {@link WebAuthnConfig} but `type`. Built
 * from the named fields: `Omit` over a type with an index signature keeps only the index
 * signature, which left every option untyped.
 */
export type WebAuthnUserConfig = Partial<Omit<WebAuthnFields, "type" | "options">> & { [key: string]: unknown }

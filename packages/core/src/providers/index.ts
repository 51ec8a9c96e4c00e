/**
 * Provider types. Each provider kind has its own module:
 * `@portcullis/core/providers/credentials`, `/oauth`, `/email`, `/webauthn`, and presets
 * such as `/providers/github`.
 * @module
 */
import type { CommonProviderOptions, PublicProvider } from "../base-types.js"
import type Credentials from "./credentials.js"
import type { CredentialsConfig, CredentialsProviderId } from "./credentials.js"
import type Email from "./email.js"
import type { EmailConfig, EmailProviderId } from "./email.js"
import type { OAuthConfig, OAuthProviderId, OIDCConfig } from "./oauth.js"
import type { WebAuthnConfig, WebAuthnProviderType, WebAuthnUserConfig } from "../lib/webauthn/provider-types.js"
import type { PasswordConfig, PasswordProviderId } from "../lib/password/provider-types.js"

// The types of each kind's module, as Auth.js's index re-exports them. Types only: the index
// stays free of run-time code, so importing from it loads no sender, template or error class.
export type { CredentialInput, CredentialsInputs, CredentialsProviderId, CredentialsUserConfig } from "./credentials.js"
export type {
  EmailProviderId,
  EmailProviderSendVerificationRequestParams,
  EmailProviderType,
  EmailUserConfig,
  SendVerificationRequestParams,
} from "./email.js"
export type {
  AccountCallback,
  AuthorizationEndpoint,
  AuthorizationEndpointHandler,
  EndpointHandler,
  EndpointRequestContext,
  OAuth2Config,
  OAuthChecks,
  OAuthClientSettings,
  OAuthConfigInternal,
  OAuthEndpointType,
  OAuthProviderButtonStyles,
  OAuthProviderId,
  OAuthUserConfig,
  OIDCConfigInternal,
  OIDCUserConfig,
  ProfileCallback,
  ProviderStyle,
  TokenEndpoint,
  TokenEndpointHandler,
  UserinfoEndpoint,
  UserinfoEndpointHandler,
} from "./oauth.js"

/** The kinds of provider. */
export type { ProviderType } from "../base-types.js"
import type { ProviderType } from "../base-types.js"

export type { CommonProviderOptions } from "../base-types.js"

/** A provider configuration object. */
export type ProviderConfig =
  | OAuthConfig<any>
  | OIDCConfig<any>
  | EmailConfig
  | CredentialsConfig<any>
  | WebAuthnConfig
  | PasswordConfig

/** A provider: a configuration object, or a factory called with no arguments. */
export type Provider = ProviderConfig | ((options?: any) => ProviderConfig)

export type { CredentialsConfig, EmailConfig, OAuthConfig, OIDCConfig, PasswordConfig, WebAuthnConfig }
export type { PasswordProviderId, PasswordUserConfig } from "../lib/password/provider-types.js"

/**
 * Any preset's id, or your own provider's (`string & {}` keeps the known ids suggested).
 *
 * @example
 * ```ts
 * import type { ProviderId } from "@portcullis/core/providers"
 * const shown: ProviderId[] = ["github", "email", "credentials"]
 * ```
 */
export type ProviderId = CredentialsProviderId | EmailProviderId | OAuthProviderId | WebAuthnProviderType | PasswordProviderId | (string & {})

/** A preset factory by id, as a lookup table of types (`BuiltInProviders["github"]`). */
export type BuiltInProviders = Record<OAuthProviderId, (config: Partial<OAuthConfig<any>>) => OAuthConfig<any>> &
  Record<CredentialsProviderId, typeof Credentials> &
  Record<EmailProviderId, typeof Email> &
  Record<WebAuthnProviderType, (config: WebAuthnUserConfig) => WebAuthnConfig>

/** The `providers` option: configuration objects and factories. */
export type AppProviders = Array<Provider | ReturnType<BuiltInProviders[keyof BuiltInProviders]>>

/** A provider as the sign-in page and `GET /auth/providers` see it: with its URLs. */
export interface AppProvider extends CommonProviderOptions, Pick<PublicProvider, "signinUrl" | "callbackUrl"> {}

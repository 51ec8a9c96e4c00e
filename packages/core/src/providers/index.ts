/**
 * Provider types. Each provider kind has its own module:
 * `@portcullis/core/providers/credentials`, `/oauth`, `/email`, `/webauthn`, and presets
 * such as `/providers/github`.
 * @module
 */
import type { CredentialsConfig } from "./credentials.js"
import type { EmailConfig } from "./email.js"
import type { OAuthConfig, OIDCConfig } from "./oauth.js"
import type { WebAuthnConfig } from "./webauthn.js"

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

/** A provider: a configuration object, or a factory called with no arguments. */
export type Provider = ProviderConfig | ((options?: any) => ProviderConfig)

export type { CredentialsConfig, EmailConfig, OAuthConfig, OIDCConfig, WebAuthnConfig }

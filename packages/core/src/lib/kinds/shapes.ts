import type { AuthError } from "../../errors.js"
import type { LoggerInstance } from "../../base-types.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { CredentialsConfig } from "../../providers/credentials.js"
import type { EmailConfig } from "../../providers/email.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import type { PasswordConfig } from "../password/provider-types.js"
import type { WebAuthnConfig } from "../webauthn/provider-types.js"
import type { Env } from "../config/env.js"

/**
 * The provider kinds' shapes, apart from the registry (`registry.ts`) that imports the kinds'
 * modules: the resolved configuration names its kinds by {@link ConfiguredKinds}, so reading
 * a configuration does not reach the kinds' request handlers, which read it in turn.
 * @module
 */

/** What a kind's configuration check may read besides its providers. */
export interface KindCheckInput {
  env: Env
  /** The configuration's `redirectProxyUrl` (or `AUTH_REDIRECT_PROXY_URL`). */
  redirectProxyUrl: string | undefined
  logger: LoggerInstance
  /**
   * The resolved session strategy, and whether a user's sessions can be ended before they
   * expire: JWT sessions with `session.registry`, database sessions on an adapter with
   * `listSessions`.
   */
  session: { strategy: "jwt" | "database"; revocable: boolean }
}

/** What resolution uses of a kind: its configuration check and its sign-in page scripts. */
export interface KindSetup<P extends ProviderConfig> {
  /**
   * Checks this kind's providers (all of them, in configuration order) when the
   * configuration is resolved, like Auth.js's `assertConfig`: the first problem is answered
   * as a configuration error on every request. Syntax only, nothing is fetched.
   */
  check?(providers: P[], input: KindCheckInput): AuthError | undefined
  /** Inline scripts the built-in sign-in page needs for this kind's forms. */
  pageScripts?: readonly string[]
}

/** The provider configuration each kind takes. */
export interface KindConfigs {
  credentials: CredentialsConfig
  email: EmailConfig
  webauthn: WebAuthnConfig
  oauth: OAuthConfig<any>
  password: PasswordConfig
}
export type KindName = keyof KindConfigs

/**
 * What the resolved configuration exposes of its kinds (`ResolvedConfig.kinds`): the
 * checks' outcome and the sign-in page scripts. It is always a `ProviderKinds`, whose
 * `load` gives each kind's module; that type stays out of here because the modules' handlers
 * take a request context, which holds the resolved configuration.
 */
export interface ConfiguredKinds {
  /** The first problem the kinds' configuration checks found, else `undefined`. */
  readonly checked: Promise<AuthError | undefined>
  /** The inline scripts the built-in sign-in page needs for the configured kinds' forms. */
  pageScripts(providers: readonly { type: string }[]): Promise<string[]>
}

/**
 * The provider's state for one configuration, built once by the extension's `setup`: the
 * resolved options, the wrapped store, the clients, the key ring, caches of clients' remote
 * key sets.
 * @module
 */
import { InvalidConfig, type ExtensionHost } from "@portcullis/core/extension"
import type { JWTVerifyGetKey } from "jose"
import type { Client } from "./clients.js"
import type { AccessTokenClaims } from "./access-token.js"
import { KeyRing } from "./keys.js"
import { RandomPool } from "./random.js"
import { hashSecrets, type ResolvedOptions } from "./options.js"
import type { OidcProviderStore } from "./store/types.js"

export interface Locals {
  options: ResolvedOptions
  /** The store, wrapped by core (bounded, a failure a 503). */
  store: OidcProviderStore
  clients: Map<string, Client>
  keys: KeyRing
  remoteKeys: Map<string, JWTVerifyGetKey>
  /**
   * Access tokens whose signature and claims held, by token (at most
   * `VERIFIED_ACCESS_TOKENS`, oldest dropped first): a token presented again skips the
   * signature check, never the expiry, issuer, key or revocation checks (tokens.ts).
   */
  verifiedAccessTokens: Map<string, { claims: AccessTokenClaims; kid: string }>
  /** Random values for the token endpoint's answers (refresh tokens, `jti`s): one CSPRNG call per 4 KiB. */
  random: RandomPool
  getUser: ExtensionHost["getUser"]
  /** Resolves once static clients' secrets are hashed. */
  ready: Promise<void>
}

export function buildLocals(options: ResolvedOptions & { pendingSecrets: Map<string, string> }, host: ExtensionHost): Locals {
  const store = host.wrapStore("oidc provider", options.store)
  const ready = hashSecrets(options.clients, options.pendingSecrets)
  ready.catch(() => {})
  let sealKeys: Promise<Uint8Array[]> | undefined
  return {
    options,
    store,
    clients: options.clients,
    keys: new KeyRing({
      store,
      algs: options.signingAlgs,
      configured: options.keys,
      rotation: options.keyRotation,
      cacheTtl: options.keyCacheTtl,
      tokenLifetime: Math.max(options.ttl.accessToken, options.ttl.idToken),
      sealKeys: () => (sealKeys ??= host.deriveKeys("signing-keys")),
      onUnreadable: (error) => host.logger.error(error),
    }),
    remoteKeys: new Map(),
    verifiedAccessTokens: new Map(),
    random: new RandomPool(),
    getUser: host.getUser,
    ready,
  }
}

/**
 * The issuer for a request: the configured one, else `<authUrl>/oidc` — which outside
 * development needs a trusted origin (AUTH_URL or trustedOrigins): an issuer taken from a
 * forged Host header would be published in discovery and signed into tokens.
 */
export function issuerOf(locals: Locals, req: { authUrl: string; originTrusted: boolean }): string {
  if (!req.originTrusted && !locals.options.development) {
    throw new InvalidConfig(
      `oidcProvider: the site's origin (${new URL(req.authUrl).origin}) comes only from the request's Host header, which anyone can forge; an OpenID Provider must not publish or sign it. Set AUTH_URL, or list the origin in trustedOrigins.`,
    )
  }
  return locals.options.issuer ?? `${req.authUrl}/oidc`
}

/** Where the provider's routes are served: `<authUrl>/oidc`. */
export function routesBase(req: { authUrl: string }): string {
  return `${req.authUrl}/oidc`
}

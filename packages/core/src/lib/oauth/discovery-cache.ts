import type * as o from "oauth4webapi"
import type { OAuthConfig } from "../../providers/oauth.js"

export interface Entry {
  metadata: Promise<o.AuthorizationServer>
  expires: number
}

/**
 * Discovered metadata per provider object, owned by one resolved configuration
 * (`ResolvedConfig.discovery`; resolved configs are cached, so the provider object is
 * stable). Keeping the *same* metadata object matters beyond saving a request:
 * oauth4webapi keys its JWKS cache on it, so a new object per sign-in would refetch the
 * key set every time. A plain `WeakMap` type, so resolving a configuration creates it
 * without loading any OAuth code.
 */
export type DiscoveryCache = WeakMap<OAuthConfig<any>, Entry>

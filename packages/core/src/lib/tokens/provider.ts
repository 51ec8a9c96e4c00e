/**
 * Which provider a token refresh is for. Apart from the grant itself (`grant.ts`, OAuth code
 * loaded only when a refresh happens), so apps that never refresh don't load OAuth code.
 * @module
 */
import { InvalidProvider } from "../../errors.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import type { ResolvedConfig } from "../config/resolved.js"

/** The OAuth/OIDC provider `id` of the configuration; `InvalidProvider` for any other. */
export function refreshableProvider(config: ResolvedConfig, id: string): OAuthConfig<any> {
  const provider: ProviderConfig | undefined = config.providerById.get(id)
  if (!provider || (provider.type !== "oauth" && provider.type !== "oidc")) {
    throw new InvalidProvider(`getAccessToken: "${id}" is not an OAuth or OIDC provider of this configuration`)
  }
  return provider
}

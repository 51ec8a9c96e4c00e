import type * as o from "oauth4webapi"
import type { OAuthConfigInternal } from "../../providers/oauth.js"
import type { OAuthRuntime } from "./provider.js"

/**
 * The provider as custom endpoint `request` functions see it (`OAuthConfigInternal`):
 * endpoints as URLs (explicit ones, else discovered), callback URL and checks known.
 */
export function internalProvider(rt: OAuthRuntime, metadata: o.AuthorizationServer): OAuthConfigInternal<any> {
  const { provider } = rt
  const token = typeof provider.token === "object" ? provider.token : {}
  const userinfo = typeof provider.userinfo === "object" ? provider.userinfo : {}
  const url = (value: string | undefined) => (value ? new URL(value) : undefined)
  return {
    ...provider,
    type: rt.type,
    authorization: metadata.authorization_endpoint ? { url: new URL(metadata.authorization_endpoint) } : undefined,
    token: { ...token, url: url(metadata.token_endpoint) },
    userinfo: { ...userinfo, url: url(metadata.userinfo_endpoint) },
    callbackUrl: rt.callbackUrl,
    signinUrl: rt.signinUrl,
    checks: [...rt.checks],
  }
}

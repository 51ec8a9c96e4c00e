import type { ResponseInternal } from "../../base-types.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { RequestContext } from "../context.js"
import { credentialsKind } from "./credentials.js"
import { emailKind } from "./email.js"
import { webauthnKind } from "./webauthn.js"
import { oauthKind } from "./oauth.js"

export type { ProviderKind } from "./kind.js"
import type { ProviderKind } from "./kind.js"

/** A kind with its provider filled in: what the actions call. */
export interface BoundKind {
  signin?(ctx: RequestContext): Promise<ResponseInternal>
  callback(ctx: RequestContext): Promise<ResponseInternal>
  options?(ctx: RequestContext): Promise<ResponseInternal>
}

function bind<P extends ProviderConfig>(kind: ProviderKind<P>, provider: P): BoundKind {
  return {
    ...(kind.signin && { signin: (ctx: RequestContext) => kind.signin!(ctx, provider) }),
    callback: (ctx) => kind.callback(ctx, provider),
    ...(kind.options && { options: (ctx: RequestContext) => kind.options!(ctx, provider) }),
  }
}

/**
 * The kind of `provider`, bound to it. The switch narrows the provider to its kind's type,
 * so each kind gets exactly the configuration it declares (no `ProviderKind<any>`); a type
 * with no kind is `undefined`, refused by the caller with `InvalidProvider`.
 */
export function kindFor(provider: ProviderConfig): BoundKind | undefined {
  switch (provider.type) {
    case "credentials":
      return bind(credentialsKind, provider)
    case "email":
      return bind(emailKind, provider)
    case "webauthn":
      return bind(webauthnKind, provider)
    case "oauth":
    case "oidc":
      return bind(oauthKind, provider)
    default:
      return undefined
  }
}

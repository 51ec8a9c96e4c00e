import type { ResponseInternal } from "../../base-types.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { RequestContext } from "../context.js"
import type { ProviderKind } from "./kind.js"
import type { ProviderKinds } from "./registry.js"
import type { ConfiguredKinds } from "./shapes.js"
import type { PasswordTools } from "./password.js"

export type { ProviderKind } from "./kind.js"

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
 * The kind of `provider`, bound to it, from the configuration's loaded kinds
 * (`ctx.config.kinds`). The switch narrows the provider to its kind's type, so each kind
 * gets exactly the configuration it declares (no `ProviderKind<any>`); a type with no kind
 * is `undefined`, refused by the caller with `InvalidProvider`.
 */
export async function kindFor(configured: ConfiguredKinds, provider: ProviderConfig): Promise<BoundKind | undefined> {
  // Resolution always builds a `ProviderKinds`; the configuration's type names only its
  // leaf shape (`shapes.ts` says why), so the kinds' modules are typed here, where they load.
  const kinds = configured as ProviderKinds
  switch (provider.type) {
    case "credentials":
      return bind(await kinds.load("credentials"), provider)
    case "email":
      return bind(await kinds.load("email"), provider)
    case "webauthn":
      return bind(await kinds.load("webauthn"), provider)
    case "password":
      return bind(await kinds.load("password"), provider)
    case "oauth":
    case "oidc":
      return bind(await kinds.load("oauth"), provider)
    default:
      return undefined
  }
}

/**
 * Argon2 and the strength estimator, from the configuration's password kind: they come
 * with the `Password()` provider (`lib/kinds/password.ts`), so the flows that use them
 * (sign-up, reset, change, step-up) load them only once that provider is configured.
 */
export async function passwordTools(configured: ConfiguredKinds): Promise<PasswordTools> {
  return (await (configured as ProviderKinds).load("password")).tools
}

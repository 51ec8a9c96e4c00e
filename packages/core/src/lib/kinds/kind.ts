import type { ResponseInternal } from "../../base-types.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { KindSetup } from "./shapes.js"
import type { RequestContext } from "../context.js"

/**
 * What a provider kind contributes: starting a sign-in (`POST /signin/:id`), finishing it
 * (`/callback/:id`), for WebAuthn the options endpoint and the sign-in page's passkey
 * script, and the check of its providers' configuration. Each kind lives in its own
 * module, loaded only by configurations that have a provider of it (`lib/kinds/registry.ts`);
 * the shared last step is `establishSession`.
 */
export interface ProviderKind<P extends ProviderConfig = ProviderConfig> extends KindSetup<P> {
  signin?(ctx: RequestContext, provider: P): Promise<ResponseInternal>
  callback(ctx: RequestContext, provider: P): Promise<ResponseInternal>
  options?(ctx: RequestContext, provider: P): Promise<ResponseInternal>
}

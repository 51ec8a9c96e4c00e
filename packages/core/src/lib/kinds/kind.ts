import type { ResponseInternal } from "../../base-types.js"
import type { ProviderConfig } from "../../providers/index.js"
import type { RequestContext } from "../context.js"

/**
 * What a provider kind contributes: starting a sign-in (`POST /signin/:id`), finishing it
 * (`/callback/:id`), and for WebAuthn the options endpoint. Each kind lives in its own file;
 * the shared last step is `establishSession`.
 */
export interface ProviderKind<P extends ProviderConfig = ProviderConfig> {
  signin?(ctx: RequestContext, provider: P): Promise<ResponseInternal>
  callback(ctx: RequestContext, provider: P): Promise<ResponseInternal>
  options?(ctx: RequestContext, provider: P): Promise<ResponseInternal>
}

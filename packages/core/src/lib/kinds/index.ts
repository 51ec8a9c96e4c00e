import type { ProviderConfig, ProviderType } from "../../providers/index.js"
import type { ResponseInternal } from "../../types.js"
import type { RequestContext } from "../context.js"
import { credentialsKind } from "./credentials.js"
import { emailKind } from "./email.js"
import { webauthnKind } from "./webauthn.js"
import { oauthKind } from "./oauth.js"

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

/** Provider kinds by type. A type with no entry here is refused with `InvalidProvider`. */
export const kinds: Partial<Record<ProviderType, ProviderKind<any>>> = {
  credentials: credentialsKind,
  email: emailKind,
  webauthn: webauthnKind,
  oauth: oauthKind,
  oidc: oauthKind,
}

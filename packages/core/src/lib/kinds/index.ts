import type { ProviderConfig, ProviderType } from "../../providers/index.js"
import { credentialsKind } from "./credentials.js"
import { emailKind } from "./email.js"
import { webauthnKind } from "./webauthn.js"
import { oauthKind } from "./oauth.js"

export type { ProviderKind } from "./kind.js"
import type { ProviderKind } from "./kind.js"

/** Provider kinds by type. A type with no entry here is refused with `InvalidProvider`. */
export const kinds: Partial<Record<ProviderType, ProviderKind<any>>> = {
  credentials: credentialsKind,
  email: emailKind,
  webauthn: webauthnKind,
  oauth: oauthKind,
  oidc: oauthKind,
}

/**
 * WebAuthn (passkey) provider types.
 * @module
 */
import type { CommonProviderOptions } from "./index.js"

/** A WebAuthn provider. */
export interface WebAuthnConfig extends CommonProviderOptions {
  type: "webauthn"
  /** Relying party; default from the site URL. */
  relayingParty?: { id?: string; name?: string; origin?: string }
  enableConditionalUI?: boolean
  formFields?: Record<string, { label?: string; required?: boolean; autocomplete?: string }>
  [key: string]: unknown
}

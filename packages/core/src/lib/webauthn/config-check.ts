import { AuthError, DuplicateConditionalUI, InvalidConfig, MissingWebAuthnAutocomplete } from "../../errors.js"
import type { WebAuthnConfig } from "./provider-types.js"

/**
 * Auth.js's configuration checks of WebAuthn providers, run when the configuration is
 * resolved: `simpleWebAuthnBrowserVersion` must look like `v9.0.1` (Portcullis ships the
 * browser script and does not use it, but a config Auth.js refuses is refused here too),
 * at most one provider may ask for conditional UI, and that one needs a form field whose
 * `autocomplete` contains `webauthn`. Returns the first problem.
 *
 * @example
 * checkWebAuthnConfig([WebAuthn(), Passkey()]) // → DuplicateConditionalUI (both default to conditional UI)
 */
export function checkWebAuthnConfig(providers: WebAuthnConfig[]): AuthError | undefined {
  let conditional: WebAuthnConfig | undefined
  for (const provider of providers) {
    const version = provider.simpleWebAuthnBrowserVersion
    if (version !== undefined && (typeof version !== "string" || !/^v\d+(?:\.\d+){0,2}$/.test(version))) {
      return new InvalidConfig(`Invalid provider config for "${provider.id}": simpleWebAuthnBrowserVersion ${JSON.stringify(version)} must be a valid semver string.`)
    }
    if (!provider.enableConditionalUI) continue
    if (conditional) {
      return new DuplicateConditionalUI(
        `Multiple webauthn providers have 'enableConditionalUI' set to True ("${conditional.id}" and "${provider.id}"). Only one provider can have this option enabled at a time`,
      )
    }
    conditional = provider
    const fields = Object.values(provider.formFields ?? {})
    if (!fields.some((f) => typeof f?.autocomplete === "string" && f.autocomplete.includes("webauthn"))) {
      return new MissingWebAuthnAutocomplete(`Provider "${provider.id}" has 'enableConditionalUI' set to True, but none of its formFields have 'webauthn' in their autocomplete param`)
    }
  }
  return undefined
}

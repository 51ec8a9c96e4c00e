import type { AuthError } from "../../errors.js"
import type { ResolvedConfig } from "./resolved.js"

/**
 * The configuration's own problems, without the provider kinds': the synchronous checks',
 * then the two that settle once code has loaded (the wildcard trusted origins' Public Suffix
 * List, the default locale's catalog). For the runtime's entries that have always skipped
 * the kinds' checks (`manageSessions`, `getAccessToken`).
 */
export async function optionProblem(config: ResolvedConfig): Promise<AuthError | undefined> {
  return config.error ?? (await config.trustedOrigins.checked) ?? (await config.i18n.checked)
}

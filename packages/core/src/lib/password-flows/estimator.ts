/**
 * The zxcvbn estimator with the common dictionary (about 450 KiB minified), imported when the
 * first new password is checked. Only the password kind names this module, so only apps that
 * configure `Password()` ship it (`strength.ts` says why).
 * @module
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core"

/**
 * zxcvbn's cap, its default too: a longer password is estimated on its first 256 characters,
 * which bounds the matcher's work on a hostile megabyte-long "password".
 */
const MAX_ESTIMATED_LENGTH = 256

export async function buildEstimator(): Promise<ZxcvbnFactory> {
  const [{ ZxcvbnFactory }, common] = await Promise.all([import("@zxcvbn-ts/core"), import("@zxcvbn-ts/language-common")])
  return new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs, maxLength: MAX_ESTIMATED_LENGTH })
}

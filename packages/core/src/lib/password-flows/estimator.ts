/**
 * The zxcvbn estimator with the common dictionary (about 450 KiB minified), imported when the
 * first new password is checked. Only the password kind names this module, so only apps that
 * configure `Password()` ship it (`strength.ts` says why).
 * @module
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core"
import { MAX_ESTIMATED_LENGTH } from "./strength.js"

export async function buildEstimator(): Promise<ZxcvbnFactory> {
  const [{ ZxcvbnFactory }, common] = await Promise.all([import("@zxcvbn-ts/core"), import("@zxcvbn-ts/language-common")])
  return new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs, maxLength: MAX_ESTIMATED_LENGTH })
}

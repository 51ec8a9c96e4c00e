/**
 * The password strength estimate (`@zxcvbn-ts/core` with the common dictionary), built once
 * per configuration on first use: building the matcher's dictionaries costs tens of
 * milliseconds, checking a password a few. Imported only when a password is checked, so
 * apps without the password provider never load the dictionaries.
 * @module
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core"
import type { LogLimiter } from "../log-limiter.js"

/** zxcvbn's cap, its default too: it estimates a longer password on its first 256 characters. */
const MAX_ESTIMATED_LENGTH = 256

export class PasswordStrength {
  #factory: Promise<ZxcvbnFactory> | undefined

  /**
   * @param log where the policy's checks report what is not the user's doing (the
   *   breached-password range API failing): rate-limited, one line a minute per kind.
   */
  constructor(readonly log?: LogLimiter) {}

  /** The zxcvbn score (0–4) of `password`, with `userInputs` (the address) as known words. */
  async score(password: string, userInputs: string[]): Promise<number> {
    this.#factory ??= build()
    // A failed import is retried on the next check instead of being remembered.
    const factory = await this.#factory.catch((error: unknown) => {
      this.#factory = undefined
      throw error
    })
    // No cut here: the factory cuts the password at its maxLength itself.
    return factory.check(password, userInputs).score
  }
}

async function build(): Promise<ZxcvbnFactory> {
  const [{ ZxcvbnFactory }, common] = await Promise.all([import("@zxcvbn-ts/core"), import("@zxcvbn-ts/language-common")])
  return new ZxcvbnFactory({ dictionary: common.dictionary, graphs: common.adjacencyGraphs, maxLength: MAX_ESTIMATED_LENGTH })
}

/**
 * The password strength estimate (`@zxcvbn-ts/core` with the common dictionary), built once
 * per configuration on first use: building the matcher's dictionaries costs tens of
 * milliseconds, checking a password a few. The estimator's code is not imported here: it
 * comes with the password provider's kind (`lib/kinds/password.ts`, brought by `Password()`),
 * so an app without that provider has no path to the dictionaries, not even an `import()`.
 * @module
 */
import type { ZxcvbnFactory } from "@zxcvbn-ts/core"
import type { LogLimiter } from "../log-limiter.js"

/** Builds the estimator (`lib/password-flows/estimator.ts`), reached through the password kind. */
export type EstimatorLoader = () => Promise<ZxcvbnFactory>

export class PasswordStrength {
  #factory: Promise<ZxcvbnFactory> | undefined

  /**
   * @param load builds the estimator, on the first check.
   * @param log where the policy's checks report what is not the user's doing (the
   *   breached-password range API failing): rate-limited, one line a minute per kind.
   */
  constructor(
    readonly load: EstimatorLoader,
    readonly log?: LogLimiter,
  ) {}

  /** The zxcvbn score (0–4) of `password`, with `userInputs` (the address) as known words. */
  async score(password: string, userInputs: string[]): Promise<number> {
    this.#factory ??= this.load()
    // A failed import is retried on the next check instead of being remembered.
    const factory = await this.#factory.catch((error: unknown) => {
      this.#factory = undefined
      throw error
    })
    // No cut here: the factory cuts the password at its maxLength itself.
    return factory.check(password, userInputs).score
  }
}

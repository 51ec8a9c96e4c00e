import { PasswordRejected } from "../../errors.js"
import { MAX_PASSWORD_BYTES } from "../password/limits.js"
import type { PasswordConfig } from "../password/provider-types.js"
import type { PasswordStrength } from "./strength.js"
import type { Telemetry } from "../telemetry/index.js"
import { breachCheckOf, breachLookup, originOf } from "./breached.js"

/** Defaults of `policy`: NIST SP 800-63B's floor of 8, and zxcvbn's "safely unguessable". */
export const DEFAULT_MIN_LENGTH = 8
export const DEFAULT_MIN_SCORE = 3

export function minLengthOf(provider: PasswordConfig): number {
  return provider.policy?.minLength ?? DEFAULT_MIN_LENGTH
}

/**
 * Checks a new password against the provider's policy: length first (cheap, and bounded
 * before the estimator sees it), then strength with the address as a known word, then —
 * with `policy.breached` — the breached-password range API (the one check that leaves the
 * process, so it goes last). Reads only its input, so the answer is the same whether or not
 * the address has an account.
 */
export async function checkNewPassword(provider: PasswordConfig, strength: PasswordStrength, password: unknown, email: string, telemetry?: Telemetry): Promise<string> {
  if (typeof password !== "string") throw new PasswordRejected("PasswordTooShort", "No password was submitted")
  // Code points, so a password of emoji or CJK characters counts what the user typed; cut
  // first, so an absurdly long one is not spread in full before the byte bound refuses it.
  // Stryker disable next-line MethodExpression: the cut only bounds the work. minLength is at most 1024 (checkOptions), so the cut password (1025 code points) passes the length check exactly when the whole one does, and the byte bound below refuses both alike
  const length = [...password.slice(0, MAX_PASSWORD_BYTES + 1)].length
  if (length < minLengthOf(provider)) throw new PasswordRejected("PasswordTooShort", `The new password is shorter than ${minLengthOf(provider)} characters`)
  if (new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES) throw new PasswordRejected("PasswordTooLong", `The new password is longer than ${MAX_PASSWORD_BYTES} bytes`)
  const minScore = provider.policy?.minScore ?? DEFAULT_MIN_SCORE
  if (minScore > 0) {
    // The address and its local part (split with a limit of 1 always yields exactly that part).
    const score = await strength.score(password, [email, ...email.split("@", 1)])
    if (score < minScore) throw new PasswordRejected("PasswordTooWeak", `The new password scores ${score}, below the minimum of ${minScore}`)
  }
  const breached = breachCheckOf(provider.policy?.breached)
  if (breached) {
    // The range request gets a client span when traced (its path, a hash prefix, is left out).
    const answer = await breachLookup(telemetry?.tracing ? { ...breached, fetch: telemetry.outbound(breached.fetch ?? globalThis.fetch, "breached") } : breached, password)
    if ("count" in answer) {
      if (answer.count >= breached.minCount) throw new PasswordRejected("PasswordBreached", `The new password appears in ${answer.count} breaches (minCount ${breached.minCount})`)
    } else {
      // Not the user's doing, and during an outage it is every sign-up: a rate-limited
      // warning. Which way it fails is the app's documented choice (docs/passwords.md).
      strength.log?.warn("password-breach-check-failed", answer.failure, { onError: breached.onError, origin: originOf(breached) })
      if (breached.onError === "closed") throw new PasswordRejected("PasswordCheckUnavailable", `The breached-password check failed (${answer.failure}); onError is "closed"`)
    }
  }
  return password
}

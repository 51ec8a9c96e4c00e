/**
 * The previous TOTP step's code, for confirming an enrolment in tests: it leaves the current
 * step's code unused for the sign-in that follows (a step's code is accepted once). It is one
 * step of drift only until the current step ends: on a loaded machine a confirmation sent in
 * the last moments of a step lands in the next one, two steps after the code, and is refused
 * (a CI flake). So a call within 2 s of a step's end waits for the next step first.
 */
import { totpCode } from "@portcullis/core/two-factor"

export async function previousStepCode(secret: string): Promise<string> {
  const left = 30_000 - (Date.now() % 30_000)
  if (left < 2_000) await new Promise((resolve) => setTimeout(resolve, left + 50))
  return totpCode(secret, Date.now() - 30_000)
}

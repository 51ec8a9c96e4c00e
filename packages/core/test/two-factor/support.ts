/** Shared set-up of the two-factor flow tests: a credentials app with 2FA, and enrollment. */
import type { Adapter } from "@portcullis/core/adapters"
import type { AuthConfig } from "@portcullis/core"
import { confirmTwoFactor, startTwoFactor } from "@portcullis/core/integration"
import { totpCode } from "@portcullis/core/two-factor"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct } from "../helpers.js"
import { steppedUp } from "../step-up/support.js"

export const ADA_ID = "user-ada"

/** A credentials app with JWT sessions, an adapter holding the 2FA records, and `twoFactor` on. */
export function twoFactorApp(extra: Partial<AuthConfig> = {}, adapter: Adapter = MemoryAdapter()) {
  const config = credentialsConfig({ adapter, session: { strategy: "jwt" }, twoFactor: {}, ...extra })
  return { config, adapter, browser: () => new Browser(direct(config)) }
}

/**
 * Enrolls `userId` the way an app's settings page does, from a session of that user that
 * just stepped up: start, then confirm with a code. The confirming code is the previous
 * step's (accepted as drift), so the current step and the next are still unused for the
 * sign-ins a test makes.
 */
export async function enroll(config: AuthConfig, userId = ADA_ID) {
  const request = await steppedUp(config, userId)
  const { secret } = await startTwoFactor({ ...request, account: "ada@example.com" }, config)
  // The previous step's code is one step of drift only until the current step ends: on a
  // loaded machine the confirmation can land in the next step, two steps after the code, and
  // be refused (a CI flake). So not within 2 s of a step's end.
  const left = 30_000 - (Date.now() % 30_000)
  if (left < 2_000) await new Promise((resolve) => setTimeout(resolve, left + 50))
  const { backupCodes } = await confirmTwoFactor({ ...request, code: totpCode(secret, Date.now() - 30_000) }, config)
  return { secret, backupCodes }
}

/** Signs in with the credentials and answers the response (a redirect to the 2FA page when on). */
export async function firstFactor(browser: Browser, callbackUrl?: string): Promise<Response> {
  return browser.signIn(undefined, callbackUrl)
}

/** Posts `code` to the two-factor page, with the CSRF token. */
export async function secondFactor(browser: Browser, code: string, extra: Record<string, string> = {}): Promise<Response> {
  const csrfToken = await browser.csrfToken()
  return browser.request("/auth/two-factor", { form: { code, csrfToken, ...extra } })
}

/**
 * `count` browsers from `browser` pass the first factor one by one, then all send `code`
 * as their second step at once: the responses, and the browsers that came out signed in.
 */
export async function raceSecondFactor(browser: () => Browser, code: string, count = 10): Promise<{ responses: Response[]; signedIn: Browser[] }> {
  const browsers = Array.from({ length: count }, browser)
  for (const b of browsers) await firstFactor(b)
  const responses = await Promise.all(browsers.map((b) => secondFactor(b, code)))
  return { responses, signedIn: browsers.filter((b) => b.sessionCookie() !== undefined) }
}

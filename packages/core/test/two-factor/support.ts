/** Shared set-up of the two-factor flow tests: a credentials app with 2FA, and enrollment. */
import type { Adapter } from "@portcullis/core/adapters"
import type { AuthConfig } from "@portcullis/core"
import { confirmTwoFactor, startTwoFactor } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct } from "../helpers.js"
import { steppedUp } from "../step-up/support.js"
import { previousStepCode } from "./previous-step.js"

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
  const { backupCodes } = await confirmTwoFactor({ ...request, code: await previousStepCode(secret) }, config)
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

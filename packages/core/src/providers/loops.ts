/**
 * Email sign-in through a Loops transactional email.
 * @module
 */
import { postJson, requireApiKey } from "../lib/email/http.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js"

/** Loops' send endpoint (loops.so/docs/api-reference/send-transactional-email). */
export const LOOPS_API = "https://app.loops.so/api/v1/transactional"

/** Loops options: which transactional email to send. */
export type LoopsUserConfig = EmailUserConfig & {
  /** The id of the published transactional email; else env `AUTH_LOOPS_TRANSACTIONAL_ID`. */
  transactionalId?: string
}

/** A Loops email provider. */
export interface LoopsConfig extends EmailConfig {
  transactionalId?: string
}

/**
 * Sign in with a link sent by [Loops](https://loops.so).
 *
 * - API key: `apiKey`, else env `AUTH_LOOPS_KEY` (`AUTH_<ID>_KEY` for another id).
 * - The message is a transactional email you design and publish in Loops: pass its id as
 *   `transactionalId` (else env `AUTH_LOOPS_TRANSACTIONAL_ID`). It must use a data variable
 *   named `url` for the sign-in link. Subject, sender and body are the template's: `from`
 *   and `theme` do not apply.
 * - Sends `POST https://app.loops.so/api/v1/transactional` with `Authorization: Bearer <key>`
 *   and `{ transactionalId, email, dataVariables: { url } }`, through the provider's fetch
 *   (`[customFetch]` applies). Loops does not track clicks in transactional email, so the
 *   link is not rewritten.
 * - Any non-2xx answer, `success: false`, or a 15 s timeout ends with `?error=EmailSignin`.
 *
 * @example
 * ```ts
 * import Loops from "@portcullis/core/providers/loops"
 *
 * Loops({ transactionalId: "clx1234abc", maxAge: 10 * 60 }) // key from AUTH_LOOPS_KEY
 * ```
 */
export default function Loops(config: LoopsUserConfig = {}): LoopsConfig {
  return {
    id: "loops",
    name: "Loops",
    type: "email",
    maxAge: 24 * 60 * 60,
    sendVerificationRequest: sendWithLoops,
    options: config as Record<string, unknown>,
  }
}

async function sendWithLoops({ identifier, url, provider }: SendVerificationRequestParams): Promise<void> {
  const apiKey = requireApiKey(provider, "Loops")
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env
  const transactionalId = (provider as LoopsConfig).transactionalId || env?.AUTH_LOOPS_TRANSACTIONAL_ID
  if (!transactionalId) throw new Error("Loops: no transactional email. Set AUTH_LOOPS_TRANSACTIONAL_ID or pass transactionalId to the provider")
  const answer = await postJson(provider, "Loops", LOOPS_API, { Authorization: `Bearer ${apiKey}` }, {
    transactionalId,
    email: identifier,
    dataVariables: { url },
  })
  if ((answer as { success?: unknown } | undefined)?.success === false) throw new Error("Loops answered success: false")
}

/**
 * Email sign-in through the Resend HTTP API.
 * @module
 */
import { postJson, requireApiKey } from "../lib/email/http.js"
import { DEFAULT_FROM, renderVerificationEmail } from "../lib/email/template.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js"

/** Resend's send endpoint (resend.com/docs/api-reference/emails/send-email). */
export const RESEND_API = "https://api.resend.com/emails"

/**
 * Sign in with a link sent by [Resend](https://resend.com).
 *
 * - API key: `apiKey`, else env `AUTH_RESEND_KEY` (`AUTH_<ID>_KEY` for another id).
 * - `from` must be an address of a domain verified in Resend.
 * - Sends `POST https://api.resend.com/emails` with `Authorization: Bearer <key>` and the
 *   built-in HTML and text bodies, through the provider's fetch (`[customFetch]` applies).
 * - Resend's click tracking is a domain setting: keep it off for the sending domain, or the
 *   link (and its token) goes through Resend's redirector.
 * - Any non-2xx answer or a 15 s timeout ends with `?error=EmailSignin`.
 *
 * @example
 * ```ts
 * import Resend from "@portcullis/core/providers/resend"
 *
 * Resend({ from: "Example <no-reply@example.com>", maxAge: 10 * 60 }) // key from AUTH_RESEND_KEY
 * ```
 */
export default function Resend(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "resend",
    name: "Resend",
    type: "email",
    from: DEFAULT_FROM,
    maxAge: 24 * 60 * 60,
    sendVerificationRequest: sendWithResend,
    options: config as Record<string, unknown>,
  }
}

async function sendWithResend({ identifier, url, expires, provider, theme, language }: SendVerificationRequestParams): Promise<void> {
  const apiKey = requireApiKey(provider, "Resend")
  const { subject, html, text } = renderVerificationEmail({ url, expires, theme, ...language })
  await postJson(provider, "Resend", RESEND_API, { Authorization: `Bearer ${apiKey}` }, {
    from: provider.from || DEFAULT_FROM,
    to: identifier,
    subject,
    html,
    text,
  })
}

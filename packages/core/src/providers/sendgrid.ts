/**
 * Email sign-in through the SendGrid v3 Mail Send API.
 * @module
 */
import { postJson, requireApiKey } from "../lib/email/http.js"
import { DEFAULT_FROM, renderVerificationEmail } from "../lib/email/template.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js"

/** SendGrid's v3 Mail Send endpoint (docs.sendgrid.com/api-reference/mail-send/mail-send). */
export const SENDGRID_API = "https://api.sendgrid.com/v3/mail/send"

/**
 * Sign in with a link sent by [SendGrid](https://sendgrid.com).
 *
 * - API key: `apiKey`, else env `AUTH_SENDGRID_KEY` (`AUTH_<ID>_KEY` for another id).
 * - `from` (`"Name <address>"` or a bare address) must be a verified sender in SendGrid.
 * - Sends `POST https://api.sendgrid.com/v3/mail/send` with `Authorization: Bearer <key>`,
 *   one personalization with the one recipient, text then HTML content, through the
 *   provider's fetch (`[customFetch]` applies).
 * - Click tracking is switched off for this message: SendGrid would otherwise rewrite the
 *   link through its own domain, handing the token to its redirector.
 * - Any non-2xx answer (success is 202) or a 15 s timeout ends with `?error=EmailSignin`.
 *
 * @example
 * ```ts
 * import SendGrid from "@portcullis/core/providers/sendgrid"
 *
 * SendGrid({ from: "Example <no-reply@example.com>", maxAge: 10 * 60 }) // key from AUTH_SENDGRID_KEY
 * ```
 */
export default function SendGrid(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "sendgrid",
    name: "SendGrid",
    type: "email",
    from: DEFAULT_FROM,
    maxAge: 24 * 60 * 60,
    sendVerificationRequest: sendWithSendGrid,
    options: config as Record<string, unknown>,
  }
}

/** `"Name <a@b.c>"` → `{ name, email }`; a bare address → `{ email }`. */
export function parseSender(from: string): { email: string; name?: string } {
  const match = /^\s*(.*?)\s*<([^<>\s]+)>\s*$/.exec(from)
  if (!match) return { email: from.trim() }
  const name = match[1]!.replace(/^"(.*)"$/, "$1")
  return name ? { email: match[2]!, name } : { email: match[2]! }
}

async function sendWithSendGrid({ identifier, url, expires, provider, theme, language }: SendVerificationRequestParams): Promise<void> {
  const apiKey = requireApiKey(provider, "SendGrid")
  const { subject, html, text } = renderVerificationEmail({ url, expires, theme, ...language })
  await postJson(provider, "SendGrid", SENDGRID_API, { Authorization: `Bearer ${apiKey}` }, {
    personalizations: [{ to: [{ email: identifier }] }],
    from: parseSender(provider.from || DEFAULT_FROM),
    subject,
    // SendGrid requires text/plain before text/html.
    content: [
      { type: "text/plain", value: text },
      { type: "text/html", value: html },
    ],
    tracking_settings: { click_tracking: { enable: false, enable_text: false } },
  })
}

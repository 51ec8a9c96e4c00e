/**
 * Email sign-in through the Forward Email HTTP API.
 * @module
 */
import { postJson, requireApiKey } from "../lib/email/http.js"
import { DEFAULT_FROM, renderVerificationEmail } from "../lib/email/template.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js"

/** Forward Email's outbound SMTP-over-API endpoint (forwardemail.net/email-api#outbound-emails-create-email). */
export const FORWARDEMAIL_API = "https://api.forwardemail.net/v1/emails"

/**
 * Sign in with a link sent by [Forward Email](https://forwardemail.net).
 *
 * - API token: `apiKey`, else env `AUTH_FORWARDEMAIL_KEY` (`AUTH_<ID>_KEY` for another id).
 * - `from` must be an address of a domain set up for outbound SMTP in Forward Email.
 * - Sends `POST https://api.forwardemail.net/v1/emails` with HTTP Basic authentication (the
 *   token as user name, empty password), as Forward Email documents, and JSON `from`, `to`,
 *   `subject`, `html`, `text`, through the provider's fetch (`[customFetch]` applies).
 * - Any non-2xx answer or a 15 s timeout ends with `?error=EmailSignin`.
 *
 * @example
 * ```ts
 * import ForwardEmail from "@portcullis/core/providers/forwardemail"
 *
 * ForwardEmail({ from: "Example <no-reply@example.com>", maxAge: 10 * 60 }) // token from AUTH_FORWARDEMAIL_KEY
 * ```
 */
export default function ForwardEmail(config: EmailUserConfig = {}): EmailConfig {
  return {
    id: "forwardemail",
    name: "Forward Email",
    type: "email",
    from: DEFAULT_FROM,
    maxAge: 24 * 60 * 60,
    sendVerificationRequest: sendWithForwardEmail,
    options: config as Record<string, unknown>,
  }
}

async function sendWithForwardEmail({ identifier, url, expires, provider, theme, language }: SendVerificationRequestParams): Promise<void> {
  const token = requireApiKey(provider, "Forward Email")
  const { subject, html, text } = renderVerificationEmail({ url, expires, theme, ...language })
  await postJson(provider, "Forward Email", FORWARDEMAIL_API, { Authorization: `Basic ${btoa(`${token}:`)}` }, {
    from: provider.from || DEFAULT_FROM,
    to: identifier,
    subject,
    html,
    text,
  })
}

/**
 * Email sign-in through the Postmark HTTP API.
 * @module
 */
import { postJson, requireApiKey } from "../lib/email/http.js"
import { DEFAULT_FROM, renderVerificationEmail } from "../lib/email/template.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "./email.js"

/** Postmark's single-email endpoint (postmarkapp.com/developer/api/email-api). */
export const POSTMARK_API = "https://api.postmarkapp.com/email"

/** Postmark options: the message stream to send through (default `outbound`, the transactional stream). */
export type PostmarkUserConfig = EmailUserConfig & { messageStream?: string }

/** A Postmark email provider. */
export interface PostmarkConfig extends EmailConfig {
  messageStream: string
}

/**
 * Sign in with a link sent by [Postmark](https://postmarkapp.com).
 *
 * - Server token: `apiKey`, else env `AUTH_POSTMARK_KEY` (`AUTH_<ID>_KEY` for another id).
 * - `from` must be a confirmed sender signature or domain in Postmark.
 * - Sends `POST https://api.postmarkapp.com/email` with `X-Postmark-Server-Token: <token>`
 *   and `From`, `To`, `Subject`, `HtmlBody`, `TextBody`, `MessageStream`, through the
 *   provider's fetch (`[customFetch]` applies).
 * - Link tracking is switched off for this message (`TrackLinks: "None"`), so the token is
 *   not routed through Postmark's redirector.
 * - Any non-2xx answer, an `ErrorCode` other than 0, or a 15 s timeout ends with
 *   `?error=EmailSignin`.
 *
 * @example
 * ```ts
 * import Postmark from "@portcullis/core/providers/postmark"
 *
 * Postmark({ from: "Example <no-reply@example.com>", maxAge: 10 * 60 }) // token from AUTH_POSTMARK_KEY
 * ```
 */
export default function Postmark(config: PostmarkUserConfig = {}): PostmarkConfig {
  return {
    id: "postmark",
    name: "Postmark",
    type: "email",
    from: DEFAULT_FROM,
    maxAge: 24 * 60 * 60,
    messageStream: "outbound",
    sendVerificationRequest: sendWithPostmark,
    options: config as Record<string, unknown>,
  }
}

async function sendWithPostmark({ identifier, url, expires, provider, theme, language }: SendVerificationRequestParams): Promise<void> {
  const token = requireApiKey(provider, "Postmark")
  const { subject, html, text } = renderVerificationEmail({ url, expires, theme, ...language })
  const answer = await postJson(provider, "Postmark", POSTMARK_API, { "X-Postmark-Server-Token": token }, {
    From: provider.from || DEFAULT_FROM,
    To: identifier,
    Subject: subject,
    HtmlBody: html,
    TextBody: text,
    MessageStream: (provider as PostmarkConfig).messageStream || "outbound",
    TrackLinks: "None",
  })
  // Postmark reports failures with a non-zero ErrorCode; it should never pair one with a 2xx.
  const code = (answer as { ErrorCode?: unknown } | undefined)?.ErrorCode
  if (typeof code === "number" && code !== 0) throw new Error(`Postmark answered ErrorCode ${code}`)
}

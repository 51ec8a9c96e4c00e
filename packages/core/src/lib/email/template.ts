/**
 * The built-in sign-in email: subject, HTML and plain-text bodies.
 * @module
 */
import type { Theme } from "../../base-types.js"
import { cssColor } from "../pages/color.js"
import { html } from "../pages/html.js"

/**
 * Sender used when a provider's `from` is not set. Use an address of your own domain in
 * production. Here, not in the Nodemailer provider, so the HTTP-API email providers
 * (Resend, SendGrid, …) never import the module that loads `nodemailer`: an edge bundle
 * of them must not contain Node's SMTP client.
 */
export const DEFAULT_FROM = "Portcullis <no-reply@portcullis.dev>"

/** What {@link renderVerificationEmail} needs. */
export interface VerificationEmailInput {
  /** The sign-in link. */
  url: string
  /** When the link stops working; shown as a duration. */
  expires: Date
  theme?: Theme | undefined
  /** "Now", for the duration; tests pass a fixed value. */
  now?: number
}

/** A rendered email. */
export interface RenderedEmail {
  subject: string
  html: string
  text: string
}

const DEFAULT_BRAND = "#346df1"
const DEFAULT_BUTTON_TEXT = "#ffffff"

/**
 * Renders the sign-in email for `url`, themed with `brandColor` and `buttonText`.
 *
 * Every value is HTML-escaped, and colours that are not plain CSS colours are replaced
 * by the defaults (they land inside `style`, where escaping alone does not help). The
 * host is shown with a zero-width space before each dot, as Auth.js does, so mail
 * clients do not turn it into a link of their own.
 */
export function renderVerificationEmail({ url, expires, theme, now = Date.now() }: VerificationEmailInput): RenderedEmail {
  const parsed = new URL(url)
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new TypeError("The sign-in link must be an http(s) URL")
  const host = parsed.host
  const brand = cssColor(theme?.brandColor) ?? DEFAULT_BRAND
  const buttonText = cssColor(theme?.buttonText) ?? DEFAULT_BUTTON_TEXT
  const lifetime = describeDuration(expires.getTime() - now)
  const shownHost = host.replace(/\./g, "\u200b.")

  const body = html`<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign in to ${host}</title></head>
<body style="background:#f9f9f9;margin:0;padding:20px 0;">
<table width="100%" border="0" cellspacing="20" cellpadding="0" role="presentation" style="background:#ffffff;max-width:600px;margin:auto;border-radius:10px;">
<tr><td align="center" style="padding:10px 0;font-size:22px;font-family:Helvetica,Arial,sans-serif;color:#444444;">Sign in to <strong>${shownHost}</strong></td></tr>
<tr><td align="center" style="padding:20px 0;">
<table border="0" cellspacing="0" cellpadding="0" role="presentation"><tr>
<td align="center" style="border-radius:5px;" bgcolor="${brand}"><a href="${url}" target="_blank" rel="noopener noreferrer" style="font-size:18px;font-family:Helvetica,Arial,sans-serif;color:${buttonText};text-decoration:none;border-radius:5px;padding:10px 20px;border:1px solid ${brand};display:inline-block;font-weight:bold;">Sign in</a></td>
</tr></table>
</td></tr>
<tr><td align="center" style="padding:0 0 10px 0;font-size:16px;line-height:22px;font-family:Helvetica,Arial,sans-serif;color:#444444;">The link works once and expires in ${lifetime}.<br>If you did not request this email you can safely ignore it.</td></tr>
</table>
</body>
</html>
`
  const text = `Sign in to ${host}\n${url}\n\nThe link works once and expires in ${lifetime}.\nIf you did not request this email you can safely ignore it.\n`
  return { subject: `Sign in to ${host}`, html: body.toString(), text }
}

/**
 * "10 minutes", "24 hours", "3 days": coarse on purpose. Minutes round up, so a link
 * rendered a moment after it was made still reads as its configured lifetime.
 */
export function describeDuration(ms: number): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000))
  if (minutes < 120) return plural(minutes, "minute")
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return plural(hours, "hour")
  return plural(Math.floor(hours / 24), "day")
}

function plural(n: number, unit: string): string {
  return `${n} ${unit}${n === 1 ? "" : "s"}`
}

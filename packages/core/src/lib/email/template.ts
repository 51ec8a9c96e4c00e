/**
 * The built-in sign-in email: subject, HTML and plain-text bodies.
 * @module
 */
import type { Theme } from "../../base-types.js"
import { cssColor } from "../pages/color.js"
import { html } from "../pages/html.js"
import type { Messages } from "../i18n/catalog.js"
import { en } from "../i18n/catalogs/en.js"
import { describeDuration, fill, fillText } from "../i18n/format.js"

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
  /** The email's sentences (`SendVerificationRequestParams.messages`). Default English. */
  messages?: Messages["email"] | undefined
  /** Their language tag, for `<html lang>` and the duration's words. Default `"en"`. */
  locale?: string | undefined
  /** Their direction. Default `"ltr"`. */
  dir?: "ltr" | "rtl" | undefined
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
export function renderVerificationEmail({ url, expires, theme, now = Date.now(), messages = en.email, locale = "en", dir = "ltr" }: VerificationEmailInput): RenderedEmail {
  const parsed = new URL(url)
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new TypeError("The sign-in link must be an http(s) URL")
  const host = parsed.host
  const brand = cssColor(theme?.brandColor) ?? DEFAULT_BRAND
  const buttonText = cssColor(theme?.buttonText) ?? DEFAULT_BUTTON_TEXT
  const lifetime = describeDuration(expires.getTime() - now, locale)
  const shownHost = host.replace(/\./g, "\u200b.")

  const body = html`<!DOCTYPE html>
<html lang="${locale}" dir="${dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${fill(messages.subject, { host })}</title></head>
<body style="background:#f9f9f9;margin:0;padding:20px 0;">
<table width="100%" border="0" cellspacing="20" cellpadding="0" role="presentation" style="background:#ffffff;max-width:600px;margin:auto;border-radius:10px;">
<tr><td align="center" style="padding:10px 0;font-size:22px;font-family:Helvetica,Arial,sans-serif;color:#444444;">${fill(messages.heading, { host: html`<strong>${shownHost}</strong>` })}</td></tr>
<tr><td align="center" style="padding:20px 0;">
<table border="0" cellspacing="0" cellpadding="0" role="presentation"><tr>
<td align="center" style="border-radius:5px;" bgcolor="${brand}"><a href="${url}" target="_blank" rel="noopener noreferrer" style="font-size:18px;font-family:Helvetica,Arial,sans-serif;color:${buttonText};text-decoration:none;border-radius:5px;padding:10px 20px;border:1px solid ${brand};display:inline-block;font-weight:bold;">${messages.button}</a></td>
</tr></table>
</td></tr>
<tr><td align="center" style="padding:0 0 10px 0;font-size:16px;line-height:22px;font-family:Helvetica,Arial,sans-serif;color:#444444;">${fill(messages.expires, { duration: lifetime })}<br>${messages.ignore}</td></tr>
</table>
</body>
</html>
`
  const subject = fillText(messages.subject, { host })
  const text = `${fillText(messages.heading, { host })}\n${url}\n\n${fillText(messages.expires, { duration: lifetime })}\n${messages.ignore}\n`
  return { subject, html: body.toString(), text }
}

export { describeDuration }

/**
 * Email (magic link) sign-in: the provider types, and `Email()`, the default provider
 * (SMTP through Nodemailer, id `email`).
 *
 * The flow: the sign-in form posts an address to `POST /auth/signin/<id>`; Portcullis
 * normalises it, asks the `signIn` callback (with `email.verificationRequest: true`),
 * stores `sha256(token + secret)` with an expiry through the adapter, and mails
 * `{origin}{basePath}/callback/<id>?callbackUrl=…&token=…&email=…`. Opening the link
 * consumes the token once and signs the user in, creating them (with `emailVerified`)
 * on first use. An adapter is required.
 *
 * Senders: {@link Email} / `Nodemailer` (SMTP), `Resend`, `SendGrid`, `Postmark`, or
 * any object of type `"email"` with your own `sendVerificationRequest`.
 *
 * @example
 * ```ts
 * import Email from "@portcullis/core/providers/email"
 *
 * const config = {
 *   adapter: SqlAdapter(db),
 *   providers: [Email({ server: process.env.EMAIL_SERVER, from: "Example <no-reply@example.com>", maxAge: 10 * 60 })],
 * }
 * ```
 * @module
 */
import type { Awaitable, Theme } from "../base-types.js"
import type { CommonProviderOptions } from "../base-types.js"
import type { customFetch } from "../symbols.js"
import Nodemailer, { type NodemailerConfig, type NodemailerUserConfig } from "./nodemailer.js"

export { renderVerificationEmail, type RenderedEmail, type VerificationEmailInput } from "../lib/email/template.js"

export type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "../lib/email/provider-types.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "../lib/email/provider-types.js"

export type { EmailProviderId } from "./provider-types.js"

/** The `type` of every email provider. */
export type EmailProviderType = EmailConfig["type"]

/** {@link SendVerificationRequestParams} under Auth.js's name. */
export type EmailProviderSendVerificationRequestParams = SendVerificationRequestParams

/**
 * The default email provider: {@link Nodemailer} (SMTP) with id `email` and name `Email`,
 * as in Auth.js. Needs `server` (an `smtp://` / `smtps://` URL or Nodemailer transport
 * options) and the `nodemailer` package.
 *
 * @example
 * ```ts
 * import Email from "@portcullis/core/providers/email"
 *
 * Email({ server: "smtps://user:pass@smtp.example.com:465", from: "Example <no-reply@example.com>" })
 * // The sign-in form posts to /auth/signin/email; links point to /auth/callback/email.
 * ```
 */
export default function Email(config: NodemailerUserConfig): NodemailerConfig {
  return { ...Nodemailer(config), id: "email", name: "Email" }
}

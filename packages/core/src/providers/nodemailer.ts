/**
 * Email sign-in over SMTP with Nodemailer.
 * @module
 */
import { InvalidConfig } from "../errors.js"
import { DEFAULT_FROM, renderVerificationEmail } from "../lib/email/template.js"
import type { EmailConfig, EmailUserConfig, SendVerificationRequestParams } from "../lib/email/provider-types.js"

/** Nodemailer SMTP transport options (see nodemailer.com/smtp); passed through unchanged. */
export interface NodemailerTransportOptions {
  host?: string
  port?: number
  /** `true` for implicit TLS (port 465); otherwise STARTTLS is used when offered. */
  secure?: boolean
  auth?: { user?: string; pass?: string; [key: string]: unknown }
  [key: string]: unknown
}

/** An SMTP URL (`smtp://user:pass@host:587`, `smtps://…:465`) or transport options. */
export type NodemailerServer = string | NodemailerTransportOptions

/** A Nodemailer email provider. */
export interface NodemailerConfig extends EmailConfig {
  server: NodemailerServer
  from: string
}

/** What you pass to {@link Nodemailer}. `server` is required. */
export type NodemailerUserConfig = Omit<EmailUserConfig, "server"> & { server: NodemailerServer }

export { DEFAULT_FROM }

/**
 * Sign in with a link sent over SMTP. `nodemailer` is an optional peer dependency,
 * loaded on the first send: `npm install nodemailer`.
 *
 * - `server`: an `smtp://` or `smtps://` URL, or Nodemailer transport options. Required.
 * - `from`: the sender; default `Portcullis <no-reply@portcullis.dev>` — set your own.
 * - `maxAge`: link lifetime in seconds, default 24 hours; 600 follows ASVS 5.0 §6.5.5.
 * - The email is the built-in themed HTML + text message; pass `sendVerificationRequest`
 *   to send your own.
 *
 * A failed send (server down, recipient refused) sends the user back to the sign-in page
 * with `?error=EmailSignin`, and the token made for that email is deleted.
 *
 * @example
 * ```ts
 * import Nodemailer from "@portcullis/core/providers/nodemailer"
 *
 * Nodemailer({
 *   server: { host: "smtp.example.com", port: 587, auth: { user: "apikey", pass: process.env.SMTP_PASSWORD } },
 *   from: "Example <no-reply@example.com>",
 *   maxAge: 10 * 60,
 * })
 * ```
 */
export default function Nodemailer(config: NodemailerUserConfig): NodemailerConfig {
  if (!config?.server) throw new InvalidConfig("Nodemailer needs a `server`: an smtp:// URL or Nodemailer transport options")
  return {
    id: "nodemailer",
    name: "Nodemailer",
    type: "email",
    server: config.server,
    from: DEFAULT_FROM,
    maxAge: 24 * 60 * 60,
    sendVerificationRequest: sendWithNodemailer,
    options: config as Record<string, unknown>,
  }
}

/** The part of Nodemailer this provider uses. */
interface NodemailerModule {
  createTransport(server: NodemailerServer): {
    sendMail(message: { to: string; from: string; subject: string; text: string; html: string }): Promise<{ rejected?: unknown[]; pending?: unknown[] }>
    close(): void
  }
}

/**
 * Imports `nodemailer` on first use, so apps without email never load it. The module
 * loader caches the import, so nothing is kept here.
 */
async function loadNodemailer(): Promise<NodemailerModule> {
  let mod: unknown
  try {
    mod = await import("nodemailer")
  } catch (error) {
    throw new Error("The Nodemailer provider needs the nodemailer package: npm install nodemailer", { cause: error })
  }
  const m = mod as Partial<NodemailerModule> & { default?: NodemailerModule }
  if (m.createTransport) return m as NodemailerModule
  if (m.default) return m.default
  throw new Error("The nodemailer package has no createTransport export")
}

async function sendWithNodemailer(params: SendVerificationRequestParams): Promise<void> {
  const { identifier, url, expires, theme, language } = params
  const provider = params.provider as NodemailerConfig
  if (!provider.server) throw new Error("Nodemailer: no `server` configured")
  const { createTransport } = await loadNodemailer()
  const transport = createTransport(provider.server)
  try {
    const { subject, html, text } = renderVerificationEmail({ url, expires, theme, ...language })
    const result = await transport.sendMail({ to: identifier, from: provider.from || DEFAULT_FROM, subject, text, html })
    // With one recipient a refusal normally rejects the promise; a pending or rejected
    // entry here means the server queued it with reservations, which is not "sent".
    if ((result.rejected?.length ?? 0) > 0 || (result.pending?.length ?? 0) > 0) {
      throw new Error("Nodemailer: the SMTP server did not accept the recipient")
    }
  } finally {
    transport.close()
  }
}

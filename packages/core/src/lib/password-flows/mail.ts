import { AdapterError, EmailSignInError, InvalidConfig } from "../../errors.js"
import type { EmailConfig } from "../../providers/email.js"
import type { PasswordConfig } from "../password/provider-types.js"
import { customFetch } from "../../symbols.js"
import type { RequestContext } from "../context.js"
import { redactError } from "../email/redact.js"
import { mailFailed, mailSent } from "../email/send.js"
import type { EmailMessages } from "../i18n/catalog.js"
import { messagesOf, requestLocale } from "../i18n/index.js"
import { dropToken, type IssuedLink } from "./tokens.js"
import { report } from "../report.js"

/** Which of the password emails to send; each has its own sentences in the catalog. */
export type PasswordMail = "verifyEmail" | "existingAccount" | "resetEmail"

/**
 * The sender: the provider's `mailer` (its factory options applied, as configuration
 * resolution does for listed providers), else the configuration's first email provider.
 */
export function mailerOf(ctx: RequestContext, provider: PasswordConfig): EmailConfig {
  const own = provider.mailer
  if (own) {
    const { options, ...defaults } = own as EmailConfig & { options?: Record<string, unknown> }
    return { ...defaults, ...(options as Partial<EmailConfig> | undefined) } as EmailConfig
  }
  const listed = ctx.config.providers.find((p): p is EmailConfig => p.type === "email")
  if (!listed) throw new InvalidConfig(`The password provider "${provider.id}" needs a mailer (or an email provider in the configuration) to send sign-up and reset emails`)
  return listed
}

/** A stored link with its address and URL, ready for the mailer. */
export interface OutgoingPasswordLink extends IssuedLink {
  email: string
  url: string
}

/**
 * Sends in the background: starts {@link sendPasswordMail} and returns without waiting for
 * it. Sign-up and forgot-password mail some addresses and not others (or other mail), and
 * a response that waited for the mailer's round trip would tell them apart by its timing
 * (163 ms for a known address, 11 ms for an unknown one over SMTP). A failed send still
 * deletes its token; its error is logged, since the response has already gone. The promise
 * goes to the provider's `waitUntil` where the runtime stops after the response otherwise.
 */
export function mailInBackground(ctx: RequestContext, provider: PasswordConfig, kind: PasswordMail, link: OutgoingPasswordLink): void {
  issueAndMailInBackground(ctx, provider, kind, async () => link)
}

/**
 * {@link mailInBackground} for a link not stored yet: storing it goes to the background
 * too. Forgot-password issues a link only for known addresses, and a reset link is bound to
 * the password (a read) before it is stored (a write): awaited, those two round trips to
 * the store told a known address from an unknown one as surely as the mailer's did.
 */
export function issueAndMailInBackground(ctx: RequestContext, provider: PasswordConfig, kind: PasswordMail, issue: () => Promise<OutgoingPasswordLink>): void {
  const sending = (async () => sendPasswordMail(ctx, provider, kind, await issue()))().catch((error: unknown) => ctx.config.logger.error(error as Error))
  try {
    provider.waitUntil?.(sending)
  } catch (error) {
    // A platform's waitUntil called outside its request scope throws; the answer must not
    // differ for it (it runs only for addresses that get mail). The send goes on regardless.
    ctx.config.logger.error(error as Error)
  }
}

/**
 * Hands one link to the mailer's `sendVerificationRequest`, in the request's language,
 * with the sentences of `kind` — the senders render any email of this shape. On failure
 * the link's token is deleted before the error propagates (the message may have left
 * anyway), and the error is scrubbed of the token and link.
 */
export async function sendPasswordMail(
  ctx: RequestContext,
  provider: PasswordConfig,
  kind: PasswordMail,
  link: OutgoingPasswordLink,
): Promise<void> {
  const mailer = mailerOf(ctx, provider)
  const sender: EmailConfig = { ...mailer, [customFetch]: mailer[customFetch] ?? ctx.config.fetch }
  try {
    const locale = requestLocale(ctx)
    const all = messagesOf(ctx.config.i18n, locale)
    const messages: EmailMessages = all.password[kind]
    await mailer.sendVerificationRequest({
      identifier: link.email,
      url: link.url,
      expires: link.expires,
      provider: sender,
      token: link.token,
      theme: ctx.config.theme,
      request: ctx.request,
      language: { locale, dir: all.dir, messages },
    })
    mailSent(ctx)
  } catch (error) {
    try {
      await dropToken(ctx, link.identifier, link.hashed)
    } catch (cleanupError) {
      // Stryker disable next-line ArrayDeclaration: equivalent today. The error comes through the store wrapper (config/stores.ts), whose message is fixed ("Adapter method … failed") and whose cause the copy drops, so nothing of the token reaches the copy; kept for a wrapper that one day quotes its cause
      report(ctx.config, new AdapterError("The token of an unsent password email could not be deleted", redactError(cleanupError, [link.token, link.hashed])))
    }
    throw mailFailed(ctx, new EmailSignInError(`Sending the ${kind} email with provider "${mailer.id}" failed`, redactError(error, [link.token, link.url])))
  }
}

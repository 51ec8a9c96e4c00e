/**
 * Handing the link to the provider's sender, and what happens when that fails.
 * @module
 */
import { messagesOf, requestLocale } from "../i18n/index.js"
import { AdapterError, EmailSignInError } from "../../errors.js"
import type { EmailConfig } from "../../providers/email.js"
import { customFetch } from "../../symbols.js"
import type { RequestContext } from "../context.js"
import { redactError } from "./redact.js"
import { store } from "../config/stores.js"
import { report } from "../report.js"

/** A link ready to go out; its hashed token is already stored. */
export interface OutgoingLink {
  identifier: string
  token: string
  /** The stored form of `token`, to delete it again if sending fails. */
  hashed: string
  url: string
  expires: Date
}

/**
 * Calls `sendVerificationRequest`. On failure the stored token is consumed before the
 * error propagates: a sender can fail after the message has left (an API that times out
 * after accepting it), and that link must not work. The error that reaches the log is an
 * {@link EmailSignInError} whose cause has been scrubbed of the token and link.
 */
export async function deliverLink(ctx: RequestContext, provider: EmailConfig, link: OutgoingLink): Promise<void> {
  const { identifier, token, hashed, url, expires } = link
  // Senders make HTTP calls through provider[customFetch]; fill in the config-wide one
  // so a proxy or test double set once on the config applies to them too.
  const sender: EmailConfig = { ...provider, [customFetch]: ctx.config.telemetry.outbound(provider[customFetch] ?? ctx.config.fetch, "email") }
  try {
    const locale = requestLocale(ctx)
    const { dir, email: messages } = messagesOf(ctx.config.i18n, locale)
    const language = { locale, dir, messages }
    await provider.sendVerificationRequest({ identifier, url, expires, provider: sender, token, theme: ctx.config.theme, request: ctx.request, language })
    mailSent(ctx)
  } catch (error) {
    try {
      await store(ctx.config.stores, "email").useVerificationToken({ identifier, token: hashed })
    } catch (cleanupError) {
      // Nobody saw the link unless the send half-succeeded; the row still dies at `expires`.
      report(ctx.config, new AdapterError("The token of an unsent sign-in email could not be deleted", redactError(cleanupError, [token, hashed])))
    }
    throw mailFailed(ctx, new EmailSignInError(`Sending the sign-in email with provider "${provider.id}" failed`, redactError(error, [token, url])))
  }
}

/**
 * A mail server that is down fails every sign-in email a client asks for: an outage of the
 * "mail sender" (its first failure logged with its cause, then counted), not a stack per
 * request. A sender's other failures (a bad API key, a recipient the server refuses) are
 * counted the same way: the first says what is wrong, and the next email that leaves ends it.
 */
export function mailFailed(ctx: Pick<RequestContext, "config">, failure: EmailSignInError): EmailSignInError {
  ctx.config.storeHealth.raised("mail sender", failure)
  return failure
}

/** An email left: a mail sender that was failing has recovered (one `store-recovered` line). */
export function mailSent(ctx: Pick<RequestContext, "config">): void {
  const tracker = ctx.config.storeHealth.of("mail sender")
  if (tracker.failing) tracker.recovered()
}

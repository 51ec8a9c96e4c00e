/**
 * Shared pieces of the security-notice tests (issue 28): a sender that keeps what it was
 * handed and renders it as the built-in senders do, and the events an app would subscribe.
 */
import type { EmailConfig, RenderedEmail, SendVerificationRequestParams } from "@portcullis/core/providers/email"
import { renderVerificationEmail } from "@portcullis/core/providers/email"
import type { SecurityNotice, TwoFactorResetEvent } from "@portcullis/core/types"
import { expect } from "vitest"

/** One email as a sender received it, and as the built-in template renders it. */
export interface SentMail {
  to: string
  kind: string | undefined
  url: string
  token: string
  locale: string
  rendered: RenderedEmail
}

/**
 * An email provider for `notifications.mailer` (or a password provider's `mailer`): it
 * renders every email exactly as Nodemailer and the HTTP senders do, and keeps it.
 * `fail: "throw"` makes it throw, `"hang"` never settle.
 */
export function captureMailer(options: { fail?: "throw" | "hang" } = {}) {
  const sent: SentMail[] = []
  const mailer: EmailConfig = {
    id: "capture",
    name: "Capture",
    type: "email",
    from: "Security <security@example.com>",
    async sendVerificationRequest(params: SendVerificationRequestParams) {
      if (options.fail === "throw") throw new Error("the mail server refused the connection")
      if (options.fail === "hang") return new Promise<void>(() => {})
      const { identifier, url, expires, theme, token, language } = params
      sent.push({ to: identifier, kind: params.notice?.kind, url, token, locale: language.locale, rendered: renderVerificationEmail({ url, expires, theme, ...language }) })
    },
  }
  return {
    mailer,
    sent,
    /** The security notices sent to `address`. */
    noticesTo: (address: string) => sent.filter((m) => m.to === address && m.kind !== undefined),
  }
}

/** The `securityNotice` and `twoFactorReset` events, recorded. */
export function recordEvents() {
  const notices: SecurityNotice[] = []
  const resets: TwoFactorResetEvent[] = []
  return {
    notices,
    resets,
    events: {
      securityNotice: (n: SecurityNotice) => void notices.push(n),
      twoFactorReset: (e: TwoFactorResetEvent) => void resets.push(e),
    },
  }
}

/** Firefox on Windows, as a browser sends it. */
export const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0"

/** What every notice must be: about `kind`, with no token or secret anywhere, linking to a page that takes none. */
export function expectCleanNotice(mail: SentMail | undefined, kind: string, secrets: readonly string[] = []) {
  expect(mail, `a ${kind} notice`).toBeDefined()
  expect(mail!.kind).toBe(kind)
  expect(mail!.token).toBe("")
  const link = new URL(mail!.url)
  expect([...link.searchParams.keys()]).toEqual([])
  for (const secret of secrets.filter(Boolean)) {
    for (const part of [mail!.rendered.subject, mail!.rendered.html, mail!.rendered.text, mail!.url]) expect(part).not.toContain(secret)
  }
}

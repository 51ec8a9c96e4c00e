/**
 * Shared by the 2026-11-27 attacks on emailed tokens: an app with magic links and passwords
 * on one memory adapter (so both kinds of row share one verification-token table), mailing
 * through a real SMTP test server, and what "a session was set" means in a response.
 */
import type { AuthConfig } from "@portcullis/core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, direct, SECRET } from "../../helpers.js"
import { LIGHT, mailQueue } from "../../password/support.js"

/**
 * Magic links (`email`, with `provider`'s options) and passwords on one adapter, mailing to
 * `smtpUrl`. Magic links sign in on the GET unless `provider` says otherwise
 * (`interstitial: false`): these attacks are on the token, opened as Auth.js opens it.
 */
export function emailPasswordApp(smtpUrl: string, provider: { interstitial?: boolean } = {}, extra: Partial<AuthConfig> = {}) {
  const adapter = MemoryAdapter()
  const log = captureLogger()
  const mail = mailQueue()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    logger: log.logger,
    providers: [Nodemailer({ id: "email", server: smtpUrl, from: "auth@example.com", interstitial: false, ...provider }), Password({ hashing: LIGHT, waitUntil: mail.waitUntil })],
    ...extra,
  }
  return { adapter, config, log, mail, browser: () => new Browser(mail.settling(direct(config)), "http://localhost:3000") }
}

/** Whether `response` sets a non-empty session cookie (not one that clears it). */
export const sessionSet = (response: Response) =>
  response.headers.getSetCookie().some((c) => /^authjs\.session-token=[^;]/.test(c) && !/Max-Age=0/i.test(c))

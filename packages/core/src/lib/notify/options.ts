/**
 * The `notifications` option: which security notices are mailed, whether sign-ins from a new
 * device are watched, and who sends the mail — resolved once per configuration into
 * `ResolvedConfig.notifications`.
 * @module
 */
import { InvalidConfig, type AuthError } from "../../errors.js"
import type { EmailConfig } from "../../providers/email.js"
import type { PasswordConfig } from "../password/provider-types.js"
import type { ProviderConfig } from "../../providers/index.js"
import { securityNoticeKinds, type SecurityNoticeKind } from "./kinds.js"

export { securityNoticeKinds, type SecurityNoticeKind }

/** The device a notice came from, as far as the request tells (display only). */
export interface NoticeDevice {
  /** The `User-Agent` header (capped at 512 characters), or `null`. */
  userAgent: string | null
  /** Browser and operating system read from it, e.g. `"Firefox"`, `"Windows"`; `null` when not recognised. */
  browser: string | null
  os: string | null
  /** The client address (the integration's, or `X-Forwarded-For` under `trustHost`), or `null`. */
  ipAddress: string | null
}

/**
 * The `securityNotice` event: something security-relevant happened to an account. Fired for
 * every kind whether or not a mail went out, so an app can route notices elsewhere (SMS,
 * push, an audit log). It never carries a token or a secret.
 */
export interface SecurityNotice {
  kind: SecurityNoticeKind
  userId: string
  /** The address the notice was (or would have been) mailed to; `null` when the user has none. */
  email: string | null
  /** When it happened. */
  time: Date
  /** The browser that did it; absent for server functions (2FA enrolment, `resetTwoFactor`). */
  device?: NoticeDevice
  /** Whether the notice email was handed to the sender without an error. */
  emailed: boolean
}

/**
 * Security notifications (docs/notifications.md): an email to the account's address when its
 * password, second factor, passkeys or address change, and — opted in — when it signs in
 * from a device not seen before. The `securityNotice` event fires for each either way.
 *
 * @example
 * ```ts
 * const config = {
 *   providers: [Password({ mailer: Resend({ from: "Example <security@example.com>" }) })],
 *   notifications: { newDevice: true, email: { backupCodesRegenerated: false } },
 * }
 * ```
 */
export interface NotificationOptions {
  /**
   * Mail the notices: `true` every kind, `false` none, or per kind (kinds left out are
   * mailed). Default `true` when a sender exists (the `mailer` below, the password
   * provider's `mailer`, or an email provider), else nothing is mailed. `true` without any
   * sender is a configuration error.
   */
  email?: boolean | Partial<Record<SecurityNoticeKind, boolean>>
  /**
   * Watch for sign-ins from a device this account has not signed in from before (a
   * long-lived, sealed `knownDevice` cookie per browser), and send a `newDevice` notice for
   * each. Opt-in; default `false`.
   */
  newDevice?: boolean
  /** The sender of the notices: an email provider (`Resend(...)`, `Nodemailer(...)`). Default: as `email` says. */
  mailer?: EmailConfig
}

/** The `notifications` option with its defaults. */
export interface ResolvedNotifications {
  /** Whether the `newDevice` notice (and its cookie) is on. */
  newDevice: boolean
  /** Whether notices of `kind` are mailed. */
  mails(kind: SecurityNoticeKind): boolean
  /** Who sends them; `undefined` when nothing is mailed. */
  mailer: EmailConfig | undefined
}

/** Seconds the `knownDevice` cookie lives: the longest a browser keeps one (RFC 6265bis). */
export const KNOWN_DEVICE_MAX_AGE = 400 * 24 * 60 * 60

export function resolveNotifications(option: NotificationOptions | undefined, providers: readonly ProviderConfig[], fail: (e: AuthError) => void): ResolvedNotifications {
  const off: ResolvedNotifications = { newDevice: false, mails: () => false, mailer: undefined }
  if (option === undefined || option === null) option = {}
  if (typeof option !== "object" || Array.isArray(option)) {
    fail(new InvalidConfig("notifications must be an object"))
    return off
  }
  const { email, newDevice = false, mailer: own } = option
  if (typeof newDevice !== "boolean") fail(new InvalidConfig("notifications.newDevice must be a boolean"))
  const perKind = checkEmailOption(email, fail)
  if (own !== undefined && (typeof own !== "object" || own === null || typeof (own as EmailConfig).sendVerificationRequest !== "function")) {
    fail(new InvalidConfig("notifications.mailer must be an email provider (with sendVerificationRequest)"))
    return off
  }
  const mailer = own ? withOptions(own) : defaultMailer(providers)
  if (email === true && !mailer) {
    fail(new InvalidConfig("notifications.email is true but there is no sender: set notifications.mailer, the password provider's mailer, or add an email provider"))
  }
  const mails = (kind: SecurityNoticeKind) => !!mailer && email !== false && perKind?.[kind] !== false
  return { newDevice: newDevice === true, mails, mailer }
}

function checkEmailOption(email: NotificationOptions["email"], fail: (e: AuthError) => void): Partial<Record<SecurityNoticeKind, boolean>> | undefined {
  if (email === undefined || typeof email === "boolean") return undefined
  if (typeof email !== "object" || email === null || Array.isArray(email)) {
    fail(new InvalidConfig("notifications.email must be a boolean or an object of booleans by notice kind"))
    return undefined
  }
  for (const [kind, value] of Object.entries(email)) {
    if (!(securityNoticeKinds as readonly string[]).includes(kind)) fail(new InvalidConfig(`notifications.email.${kind} is not a notice kind (${securityNoticeKinds.join(", ")})`))
    else if (typeof value !== "boolean") fail(new InvalidConfig(`notifications.email.${kind} must be a boolean`))
  }
  return email
}

/** The password provider's mailer, else the first email provider: the senders of the other mails. */
function defaultMailer(providers: readonly ProviderConfig[]): EmailConfig | undefined {
  const password = providers.find((p): p is PasswordConfig => p.type === "password")
  if (password?.mailer) return withOptions(password.mailer)
  return providers.find((p): p is EmailConfig => p.type === "email")
}

/** A provider factory's result with its `options` laid over it, as listed providers are resolved. */
function withOptions(provider: EmailConfig): EmailConfig {
  const { options, ...defaults } = provider as EmailConfig & { options?: Record<string, unknown> }
  return { ...defaults, ...(options as Partial<EmailConfig> | undefined) } as EmailConfig
}

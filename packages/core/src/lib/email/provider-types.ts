import type { Awaitable, Theme } from "../../base-types.js"
import type { CommonProviderOptions } from "../../base-types.js"
import type { customFetch } from "../../symbols.js"
import type { Messages } from "../i18n/catalog.js"
import type { SecurityNoticeKind } from "../notify/kinds.js"

/** What `sendVerificationRequest` receives. */
export interface SendVerificationRequestParams {
  /** The address to send to: normalised, exactly one mailbox. */
  identifier: string
  /** The sign-in link. It carries the token: never log it. */
  url: string
  /** When the link stops working. */
  expires: Date
  /**
   * The provider, with `[customFetch]` set to the one that applies (the provider's own,
   * else the config's), so HTTP senders honour either.
   */
  provider: EmailConfig
  /** The raw token (also in `url`). Never log it. */
  token: string
  /** The configured theme, for the email's colours. */
  theme: Theme
  /** The sign-in request. */
  request: Request
  /**
   * The language the email should be written in (from the request and the `i18n` option),
   * with the email's sentences: spread it into `renderVerificationEmail`. Portcullis only;
   * Auth.js senders ignore it.
   */
  language: EmailLanguage
  /**
   * Portcullis only: set when this email is a security notice (docs/notifications.md) rather
   * than a link to sign in — `url` then opens the forgot-password or sign-in page, `token` is
   * empty, and `language.messages` holds the notice's sentences. A sender that writes its own
   * email instead of rendering `language` should check this.
   */
  notice?: { kind: SecurityNoticeKind }
}

/** The language of a sign-in email. */
export interface EmailLanguage {
  /** Locale tag, e.g. `"de"`. */
  locale: string
  dir: "ltr" | "rtl"
  /** The email's sentences in that language, with the app's overrides. */
  messages: Messages["email"]
}

/** An email provider. */
export interface EmailConfig extends CommonProviderOptions {
  type: "email"
  /** Sends the link. Throwing sends the user to the sign-in page with `?error=EmailSignin`. */
  sendVerificationRequest: (params: SendVerificationRequestParams) => Awaitable<void>
  /**
   * Seconds a link stays valid. Default `86400` (24 hours), as in Auth.js. OWASP ASVS 5.0
   * §6.5.5 asks for at most 10 minutes for out-of-band links: set `maxAge: 600` unless
   * your users need to open the link much later.
   */
  maxAge?: number
  /** Creates the raw token. Default: 32 random bytes as hex. Must be unguessable. */
  generateVerificationToken?: () => Awaitable<string>
  /**
   * Canonicalises the submitted address; throw to refuse it. The default trims, applies
   * NFC, lower-cases the address and refuses anything but one plain `local@domain`.
   * Whatever this returns must still be one address without spaces, quotes, commas,
   * angle brackets or control characters, at most 320 characters.
   */
  normalizeIdentifier?: (identifier: string) => string
  /**
   * Show a "Sign in" button page when the link is opened, and sign in only when it is
   * pressed: a GET never uses the link, so mail scanners that prefetch links neither use
   * them up nor sign in. Default `true`. `false` is the Auth.js-compatible opt-out: the GET
   * signs in, as Auth.js does.
   */
  interstitial?: boolean
  /** Secret for hashing tokens, when it must differ from the main secret. */
  secret?: string
  /** The sender, e.g. `"Example <no-reply@example.com>"`. */
  from?: string
  /** Nodemailer: the SMTP server (URL or transport options). */
  server?: unknown
  /** HTTP senders: the API key; read from `AUTH_<ID>_KEY` when not set. */
  apiKey?: string
  options?: Record<string, unknown>
  [customFetch]?: typeof fetch
}

/** What you pass to an email provider factory: any field, all optional. */
export type EmailUserConfig = Omit<Partial<EmailConfig>, "type" | "options">

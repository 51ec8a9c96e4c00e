/**
 * The password provider's configuration types, apart from its provider function
 * (`providers/password.ts`): the password kind's code, which that function brings, reads
 * them without importing the function back.
 * @module
 */
import type { CommonProviderOptions } from "../../base-types.js"
import type { PasswordOptions } from "../../password.js"
import type { EmailConfig } from "../email/provider-types.js"

export type PasswordProviderId = "password"

/** The password provider's configuration. */
export interface PasswordConfig extends CommonProviderOptions {
  type: "password"
  /**
   * `"required"` (default): a user whose address is not verified (`emailVerified` unset)
   * cannot sign in with a password, and is answered exactly as for a wrong password.
   * `"optional"`: the password is enough.
   */
  emailVerification: "required" | "optional"
  /** Argon2 parameters and implementation for new hashes (and the rehash check). Default OWASP's. */
  hashing?: PasswordOptions
  /** What a new password must be (sign-up, reset, change). */
  policy?: PasswordPolicy
  /**
   * The email provider that sends the verification, "you already have an account" and
   * reset emails — any of ours (`Nodemailer`, `Resend`, …), used only as a sender: it adds
   * no magic-link sign-in. Default: the configuration's first email provider. Sign-up and
   * reset need one of the two.
   */
  mailer?: EmailConfig
  /** Lifetime of a verification link, in seconds. Default 24 hours. */
  verificationMaxAge?: number
  /** Lifetime of a reset link, in seconds. Default 30 minutes. */
  resetMaxAge?: number
  /**
   * Receives each email send that runs after the response. Sign-up and forgot-password do
   * not wait for the mailer (their timing would tell known addresses from unknown ones), so
   * on a platform that stops the work of a request once it has answered, pass its
   * `waitUntil`: Vercel's `waitUntil` from `@vercel/functions`, Cloudflare's from
   * `cloudflare:workers`. Not needed on a Node server. A failed send is logged either way.
   *
   * @example
   * ```ts
   * import { waitUntil } from "@vercel/functions"
   * Password({ mailer: Resend({ from: "Example <no-reply@example.com>" }), waitUntil })
   * ```
   */
  waitUntil?: (promise: Promise<unknown>) => void
}

/** The rules a new password must meet. */
export interface PasswordPolicy {
  /** Fewest characters (Unicode code points). Default 8; at least 1. */
  minLength?: number
  /**
   * Lowest `@zxcvbn-ts/core` strength score accepted, 0–4 (0: anything goes; 3: "safely
   * unguessable", the default; 4: "very unguessable"). The address is among the words it
   * knows, so a password made of the address scores low.
   */
  minScore?: 0 | 1 | 2 | 3 | 4
  /**
   * Refuse passwords known from breaches (NIST SP 800-63B-4, ASVS V6) — off unless given.
   * Only the first 5 hex characters of the password's SHA-1 are sent (k-anonymity); the
   * answer is compared here. Refusals are `PasswordRejected` with code `PasswordBreached`.
   *
   * @example
   * ```ts
   * Password({ policy: { breached: {} } }) // Have I Been Pwned, fail open after 1.5 s
   * Password({ policy: { breached: { url: "https://pwned.internal.example", onError: "closed" } } })
   * ```
   */
  breached?: BreachedPasswordPolicy
}

/**
 * The breached-password check: a range API in Have I Been Pwned's Pwned Passwords shape
 * (`GET <url>/range/<5 hex chars of SHA-1>`, answered with `SUFFIX:COUNT` lines, padded with
 * rows of count 0 on `Add-Padding: true`). See docs/passwords.md.
 */
export interface BreachedPasswordPolicy {
  /** `false` turns the check off while keeping its options (e.g. from the environment). Default `true`. */
  enabled?: boolean
  /** The range API's base; requests go to `<url>/range/<PREFIX>`. Default `https://api.pwnedpasswords.com`. */
  url?: string
  /** Refuse a password seen at least this many times. Default 1 (any breach). */
  minCount?: number
  /** Milliseconds the request and its answer may take. Default 1500. */
  timeout?: number
  /**
   * When the API fails (timeout, network, a status other than 200, an answer that is not a
   * range answer): `"open"` (default) accepts the password unchecked, `"closed"` refuses it
   * with `PasswordCheckUnavailable` (the user tries again later). Both log the
   * `password-breach-check-failed` warning.
   */
  onError?: "open" | "closed"
  /** The `fetch` the request goes through (tests, platforms with their own). Default: the global `fetch`. */
  fetch?: typeof fetch
}

/** What `Password()` takes: every field but `type` is optional. */
export type PasswordUserConfig = Partial<Omit<PasswordConfig, "type" | "options">>

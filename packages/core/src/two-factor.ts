/**
 * The pieces of two-factor authentication an app (or Portcullis's own 2FA step, issue 20)
 * builds on: TOTP enrollment (RFC 6238, the secret authenticator apps scan from a QR code),
 * code verification that refuses a code used once already, and single-use backup codes
 * stored only as hashes. Stateless: the caller keeps the secret, the last used time step
 * and the code hashes with the user.
 *
 * TOTP through `otpauth`, QR codes through `qrcode-generator`; the secret is 160 random bits, the
 * codes are 6 digits every 30 seconds with SHA-1 — what every authenticator app accepts.
 *
 * @example
 * ```ts
 * import { createTotpEnrollment, verifyTotp, createBackupCodes, useBackupCode } from "@portcullis/core/two-factor"
 *
 * // enrollment: show enrollment.qrSvg, keep enrollment.secret pending until confirmed
 * const enrollment = await createTotpEnrollment({ issuer: "Example", account: user.email })
 * // confirmation and every later sign-in
 * const result = verifyTotp({ secret: user.totpSecret, code: form.code, lastUsedStep: user.totpLastStep })
 * if (result.valid) await db.setTotpLastStep(user.id, result.step)
 * // backup codes: show `codes` once, store `hashes`
 * const { codes, hashes } = await createBackupCodes()
 * ```
 * @module
 */
import { Secret, TOTP } from "otpauth"
import { sha256Hex, timingSafeEqual } from "./lib/crypto.js"

/** The one TOTP profile used: what authenticator apps expect without asking. */
const PERIOD = 30
const DIGITS = 6
const ALGORITHM = "SHA1"

/** What {@link createTotpEnrollment} returns. */
export interface TotpEnrollment {
  /** The shared secret, base32 (keep it server-side; store it once the user confirmed a code). */
  secret: string
  /** The `otpauth://totp/…` URI the QR code holds, for "can't scan? enter this" links. */
  uri: string
  /** The QR code of `uri` as an SVG document, ready to inline in a page. */
  qrSvg: string
}

/**
 * A new TOTP secret for `account` at `issuer`, with its `otpauth://` URI and QR code.
 *
 * @throws TypeError when `issuer` or `account` is empty or contains a colon (it would make
 *   the label ambiguous to authenticator apps).
 */
export async function createTotpEnrollment(options: { issuer: string; account: string }): Promise<TotpEnrollment> {
  for (const [name, value] of Object.entries({ issuer: options.issuer, account: options.account })) {
    if (typeof value !== "string" || !value.trim() || value.includes(":") || value.length > 200) {
      throw new TypeError(`createTotpEnrollment: ${name} must be a non-empty string of at most 200 characters without ":"`)
    }
  }
  const secret = new Secret({ size: 20 })
  const totp = new TOTP({ issuer: options.issuer, label: options.account, secret, algorithm: ALGORITHM, digits: DIGITS, period: PERIOD })
  const uri = totp.toString()
  // The QR encoder is loaded on the first enrollment: apps without two-factor never load it.
  const { qrSvg } = await import("./lib/two-factor/qr.js")
  return { secret: secret.base32, uri, qrSvg: qrSvg(uri) }
}

/** What {@link verifyTotp} answers. */
export type TotpResult =
  | { valid: true; /** The time step the code belongs to: store it as the next call's `lastUsedStep`. */ step: number }
  | { valid: false; reason: "malformed" | "wrong" | "reused" }

/**
 * Whether `code` is the TOTP code of `secret` now, or one step (30 s) before or after for
 * clock drift. A code whose step is not after `lastUsedStep` is refused as `reused`: a code
 * seen once — by a shoulder-surfer, a phishing proxy — does not work twice.
 *
 * Spaces and dashes in `code` are ignored ("123 456"); anything but six digits is
 * `malformed`, checked before any HMAC work.
 */
export function verifyTotp(options: { secret: string; code: string; lastUsedStep?: number | null; now?: number }): TotpResult {
  const code = typeof options.code === "string" ? options.code.replace(/[\s-]/g, "") : ""
  if (!/^\d{6}$/.test(code)) return { valid: false, reason: "malformed" }
  const timestamp = options.now ?? Date.now()
  const secret = Secret.fromBase32(options.secret)
  const delta = TOTP.validate({ token: code, secret, algorithm: ALGORITHM, digits: DIGITS, period: PERIOD, timestamp, window: 1 })
  if (delta === null) return { valid: false, reason: "wrong" }
  const step = TOTP.counter({ period: PERIOD, timestamp }) + delta
  if (typeof options.lastUsedStep === "number" && step <= options.lastUsedStep) return { valid: false, reason: "reused" }
  return { valid: true, step }
}

/** The TOTP code of `secret` at `now` (tests, and apps that show a code for support staff). */
export function totpCode(secret: string, now = Date.now()): string {
  return TOTP.generate({ secret: Secret.fromBase32(secret), algorithm: ALGORITHM, digits: DIGITS, period: PERIOD, timestamp: now })
}

const BACKUP_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789" // no 0/o, 1/l/i: read off paper

/**
 * `count` (default 10) single-use backup codes, `xxxxx-xxxxx` from an unambiguous alphabet
 * (about 49 bits each): show `codes` once, store only `hashes` (SHA-256; the codes are random,
 * so a slow hash adds nothing).
 */
export async function createBackupCodes(count = 10): Promise<{ codes: string[]; hashes: string[] }> {
  if (!Number.isInteger(count) || count < 1 || count > 100) throw new TypeError("createBackupCodes: count must be an integer from 1 to 100")
  const codes: string[] = []
  for (let i = 0; i < count; i++) {
    const chars = Array.from({ length: 10 }, randomBackupChar)
    codes.push(`${chars.slice(0, 5).join("")}-${chars.slice(5).join("")}`)
  }
  return { codes, hashes: await Promise.all(codes.map(hashBackupCode)) }
}

/**
 * Which of the stored `hashes` `code` matches (its index: remove that hash, the code is used
 * up), or `-1`. Case, spaces and dashes don't matter; every hash is compared, matching or not.
 */
export async function useBackupCode(code: string, hashes: readonly string[]): Promise<number> {
  if (typeof code !== "string" || code.length > 64) return -1
  const candidate = await hashBackupCode(code)
  let found = -1
  for (let i = 0; i < hashes.length; i++) if (timingSafeEqual(candidate, hashes[i]!) && found === -1) found = i
  return found
}

/** One letter of the alphabet, uniformly: 248 = 8 × 31, so bytes from 248 up are drawn again. */
function randomBackupChar(): string {
  for (;;) {
    const byte = crypto.getRandomValues(new Uint8Array(1))[0]!
    if (byte < 248) return BACKUP_ALPHABET[byte % BACKUP_ALPHABET.length]!
  }
}

function hashBackupCode(code: string): Promise<string> {
  return sha256Hex(`portcullis-backup-code:${code.toLowerCase().replace(/[\s-]/g, "")}`)
}

/**
 * The magic-link token: random, stored only as a keyed hash, bound to one address.
 * @module
 */
import { InvalidConfig } from "../../errors.js"
import type { EmailConfig } from "../../providers/email.js"
import { randomHex, sha256Hex } from "../crypto.js"

/** Default lifetime of a link, in seconds: 24 hours, as in Auth.js. */
export const DEFAULT_MAX_AGE = 24 * 60 * 60

/** Longest token accepted back from a link; far above any sane generator's output. */
export const MAX_TOKEN_LENGTH = 2048

/**
 * A new raw token: the provider's `generateVerificationToken`, else 32 bytes from the
 * platform CSPRNG (256 bits) as hex. The raw value goes only into the email.
 */
export async function generateToken(provider: EmailConfig): Promise<string> {
  if (!provider.generateVerificationToken) return randomHex(32)
  const token = await provider.generateVerificationToken()
  if (typeof token !== "string" || !token || token.length > MAX_TOKEN_LENGTH) {
    throw new InvalidConfig(`generateVerificationToken() of provider "${provider.id}" must return a non-empty string of at most ${MAX_TOKEN_LENGTH} characters`)
  }
  return token
}

/**
 * What the adapter stores: `sha256(token + secret)` in hex, Auth.js's exact form, so a
 * database read does not yield a usable link and links made by Auth.js before a
 * migration stay valid. Several secrets are joined with commas, as Auth.js does; rotating
 * the secret therefore invalidates links in flight, which fails safe.
 */
export function hashToken(token: string, provider: EmailConfig, secrets: readonly string[]): Promise<string> {
  const secret = provider.secret ?? secrets.join(",")
  return sha256Hex(`${token}${secret}`)
}

/** When a link made now stops working, from the provider's `maxAge` (seconds). */
export function tokenExpiry(provider: EmailConfig, now = Date.now()): Date {
  const maxAge = provider.maxAge ?? DEFAULT_MAX_AGE
  // Number.isFinite is false for anything but a finite number (a string, NaN, Infinity).
  if (!Number.isFinite(maxAge) || maxAge <= 0) {
    throw new InvalidConfig(`maxAge of provider "${provider.id}" must be a positive number of seconds, got ${JSON.stringify(maxAge)}`)
  }
  return new Date(now + maxAge * 1000)
}

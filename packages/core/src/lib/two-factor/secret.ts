/**
 * The TOTP secret at rest: sealed (JWE, `dir` + AES-GCM) with a key derived from the
 * configuration's secret under its own salt, so a copy of the database alone yields no
 * codes. Rotating `AUTH_SECRET` keeps old secrets readable while the old value stays listed.
 * @module
 */
import { decodeWith, encodeWith } from "../jwt/codec.js"
import type { KeyRing } from "../jwt/keys.js"

const SALT = "portcullis.two-factor-secret"
/** The sealed value carries an expiry like every JWE here; this one outlives any account. */
const HUNDRED_YEARS = 100 * 365 * 24 * 60 * 60

export function sealSecret(config: { keys: KeyRing; secrets: string[] }, secret: string): Promise<string> {
  return encodeWith(config.keys, { token: { totp: secret }, secret: config.secrets, salt: SALT, maxAge: HUNDRED_YEARS })
}

/** The base32 secret, or `null` when `sealed` cannot be opened (another secret, tampered). */
export async function openSecret(config: { keys: KeyRing; secrets: string[] }, sealed: string): Promise<string | null> {
  // Stryker disable next-line ArrowFunction: undefined or null, both open as no secret below
  const payload = await decodeWith<{ totp?: unknown }>(config.keys, { token: sealed, secret: config.secrets, salt: SALT }).catch(() => null)
  return typeof payload?.totp === "string" ? payload.totp : null
}

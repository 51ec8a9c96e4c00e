/**
 * User codes of the device grant (RFC 8628 §6.1): eight letters from twenty consonants with
 * no look-alikes and no vowels (no words spelled by chance), shown as `WDJB-MJHT`; typed in
 * any case, with or without the dash or spaces. 20^8 ≈ 2.6·10^10 codes, against a guessing
 * limit per user and per address and a life of minutes.
 * @module
 */

/** The device authorization grant's `grant_type` (RFC 8628 §3.4). */
export const DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"

const ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
const LENGTH = 8

/** A new user code, normalized (`WDJBMJHT`). Rejection sampling: every letter equally likely. */
export function newUserCode(): string {
  let code = ""
  while (code.length < LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(16))) {
      // 240 = 12 × 20: bytes above it would favour the first letters.
      if (byte < 240 && code.length < LENGTH) code += ALPHABET[byte % ALPHABET.length]
    }
  }
  return code
}

/** `WDJBMJHT` as shown to people: `WDJB-MJHT`. */
export function displayUserCode(code: string): string {
  return `${code.slice(0, 4)}-${code.slice(4)}`
}

/** What a person typed, normalized; `null` when it cannot be a user code (so no store lookup is spent on it). */
export function normalizeUserCode(typed: unknown): string | null {
  if (typeof typed !== "string" || typed.length > 32) return null
  const code = typed.toUpperCase().replace(/[\s-]/g, "")
  return code.length === LENGTH && [...code].every((c) => ALPHABET.includes(c)) ? code : null
}

/**
 * Invitation tokens: 32 random bytes in base64url, of which only the SHA-256 (hex) is
 * stored, compared in constant time. Web Crypto only, so it runs on every runtime core does.
 * @module
 */

/** A new secret token: 32 random bytes, base64url without padding. */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  let binary = ""
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
}

/** SHA-256 of `text` (UTF-8), as lowercase hex. */
export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)))
  return [...digest].map((b) => b.toString(16).padStart(2, "0")).join("")
}

/**
 * Whether `token` hashes to `expectedHash`. The comparison takes the same time wherever the
 * hashes differ, so response timing tells a guesser nothing about how close they came.
 */
export async function tokenMatches(token: unknown, expectedHash: string): Promise<boolean> {
  if (typeof token !== "string" || token.length === 0 || token.length > 256) return false
  const actual = await sha256Hex(token)
  if (actual.length !== expectedHash.length) return false
  let difference = 0
  for (let i = 0; i < actual.length; i++) difference |= actual.charCodeAt(i) ^ expectedHash.charCodeAt(i)
  return difference === 0
}

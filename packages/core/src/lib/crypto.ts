const encoder = new TextEncoder()

/** `bytes` random bytes as lowercase hex, from the platform CSPRNG. */
export function randomHex(bytes: number): string {
  const buf = crypto.getRandomValues(new Uint8Array(bytes))
  let out = ""
  for (const b of buf) out += b.toString(16).padStart(2, "0")
  return out
}

/** Lowercase hex SHA-256 of a UTF-8 string. */
export async function sha256Hex(input: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(input)))
  let out = ""
  for (const b of digest) out += b.toString(16).padStart(2, "0")
  return out
}

/**
 * Compares two strings without an early exit, so the time taken does not reveal how many
 * leading characters of a secret value matched.
 */
export function timingSafeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a)
  const y = encoder.encode(b)
  let diff = x.length ^ y.length
  const n = Math.max(x.length, y.length)
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0)
  return diff === 0
}

/** Lowercase hex HMAC-SHA256 of a UTF-8 message under a UTF-8 key. */
export async function hmacSha256Hex(key: string, message: string): Promise<string> {
  const imported = await crypto.subtle.importKey("raw", encoder.encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", imported, encoder.encode(message)))
  let out = ""
  for (const b of mac) out += b.toString(16).padStart(2, "0")
  return out
}

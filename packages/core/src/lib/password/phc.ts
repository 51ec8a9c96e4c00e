/**
 * The PHC string format (`$id$v=19$m=19456,t=2,p=1$salt$hash`), read only as far as we
 * need it: which algorithm made a stored hash and with what cost, so a hash made with
 * weaker parameters can be upgraded at the next sign-in.
 * @module
 */

/** A stored hash taken apart. Unknown shapes are `undefined`, never a throw. */
export interface ParsedPhc {
  id: string
  version?: number
  params: Record<string, number>
  salt: string
  hash: string
}

// Parameters are comma-separated with no optional separator: `(k=v,?)+` let the digits of
// one value also start the next key (`a=123456789=…`), and a 108-character planted hash
// backtracked for seconds (exponentially longer with each group) on the event loop.
const PARAM = "[a-z0-9-]{1,32}=[0-9]{1,10}"
const PHC = new RegExp(`^\\$([a-z0-9-]{1,32})(?:\\$v=(\\d{1,4}))?\\$(${PARAM}(?:,${PARAM}){0,15})\\$([A-Za-z0-9+/.-]{1,128})\\$([A-Za-z0-9+/.-]{1,512})$`)
/** Longest PHC string read: the parts' own bounds, added up. */
const MAX_PHC = 1 + 32 + 7 + 1 + 16 * 44 + 1 + 128 + 1 + 512

/** Parses a PHC string with numeric parameters (argon2, scrypt), else `undefined`. */
export function parsePhc(text: string): ParsedPhc | undefined {
  if (text.length > MAX_PHC) return undefined
  const m = PHC.exec(text)
  if (!m) return undefined
  const params: Record<string, number> = {}
  for (const pair of m[3]!.split(",")) {
    if (!pair) continue
    const [key, value] = pair.split("=") as [string, string]
    params[key] = Number(value)
  }
  return { id: m[1]!, ...(m[2] ? { version: Number(m[2]) } : {}), params, salt: m[4]!, hash: m[5]! }
}

/** Standard base64 without padding, PHC's encoding of salt and hash. */
export function b64NoPad(bytes: Uint8Array): string {
  let binary = ""
  for (const b of bytes) binary += String.fromCharCode(b)
  return btoa(binary).replace(/=+$/, "")
}

/** Decodes PHC base64 (standard alphabet, padding optional); `undefined` when invalid. */
export function fromB64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*$/.test(text) || text.length % 4 === 1) return undefined
  const binary = atob(text + "=".repeat((4 - (text.length % 4)) % 4))
  return Uint8Array.from(binary, (c) => c.charCodeAt(0))
}

/** Compares two byte strings in time that depends only on their lengths. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length
  const n = Math.max(a.length, b.length)
  for (let i = 0; i < n; i++) diff |= (a[i % (a.length || 1)] ?? 0) ^ (b[i % (b.length || 1)] ?? 0)
  return diff === 0
}

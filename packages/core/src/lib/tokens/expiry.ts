/**
 * When a stored access token expires, in seconds since the epoch, as far as it can be
 * trusted. Stores hand back `expires_at` as numbers, numeric strings (PostgreSQL `bigint`)
 * or garbage; anything that is not a whole, positive number of seconds counts as expired
 * (`0`), so a tampered or broken value costs one refresh, never a token handed out forever.
 * `undefined` when no expiry was stored at all (the provider sent no `expires_in`).
 */
export function storedExpiry(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined
  const n = typeof value === "number" ? value : typeof value === "string" && /^\d{1,15}$/.test(value) ? Number(value) : Number.NaN
  return Number.isSafeInteger(n) && n > 0 ? n : 0
}

/** Whether a token expiring at `expiresAt` is still good for `skew` more seconds. */
export function stillValid(expiresAt: number | undefined, skew: number): boolean {
  if (expiresAt === undefined) return true
  return expiresAt - skew > Date.now() / 1000
}

/**
 * The content encryptions a token may use: Auth.js's `A256CBC-HS512` (what Portcullis
 * writes) and `A256GCM` (which Auth.js also opens). Nothing else is ever derived for.
 */
export const CONTENT_ENCRYPTIONS = ["A256CBC-HS512", "A256GCM"] as const
export type ContentEncryption = (typeof CONTENT_ENCRYPTIONS)[number]

/** The encryption Portcullis (and Auth.js) writes. */
export const DEFAULT_ENC: ContentEncryption = "A256CBC-HS512"

export function isContentEncryption(value: unknown): value is ContentEncryption {
  return (CONTENT_ENCRYPTIONS as readonly unknown[]).includes(value)
}

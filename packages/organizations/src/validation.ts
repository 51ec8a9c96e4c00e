/**
 * The shape of what callers send: names, slugs, metadata, emails and roles, checked the
 * same way whether they came from a route's body or a server function's arguments.
 * @module
 */
import { ExtensionRequestError } from "@portcullis/core/extension"

/** A slug: lowercase `a-z0-9-`, 1–48 characters, no leading or trailing `-`. */
export const SLUG = /^[a-z0-9](?:[a-z0-9-]{0,46}[a-z0-9])?$/

/** Largest metadata, serialised as JSON. */
export const METADATA_MAX_BYTES = 4096

const invalid = (code: string, message: string) => new ExtensionRequestError(code, message, 422)

/** A name: a string, trimmed, 1–100 characters. */
export function parseName(value: unknown): string {
  if (typeof value !== "string") throw invalid("invalid-name", "name is required")
  const name = value.trim()
  if (name.length < 1 || name.length > 100) throw invalid("invalid-name", "name must be 1 to 100 characters")
  return name
}

/** A slug as given (lowercase, `a-z0-9-`). */
export function parseSlug(value: unknown): string {
  if (typeof value !== "string" || !SLUG.test(value)) throw invalid("invalid-slug", "slug must be 1 to 48 lowercase letters, digits or -, not starting or ending with -")
  return value
}

/**
 * A slug derived from a name: accents dropped, anything else but letters and digits
 * collapsed into `-`; `"org"` when nothing is left (a name in another script).
 */
export function slugFromName(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 40)
    .replace(/-+$/, "")
  return slug || "org"
}

/** Metadata: a JSON object of at most 4 KiB, or `null` (none). */
export function parseMetadata(value: unknown): Record<string, unknown> | null {
  if (value === null) return null
  if (typeof value !== "object" || Array.isArray(value)) throw invalid("invalid-metadata", "metadata must be a JSON object")
  let json: string
  try {
    json = JSON.stringify(value)
  } catch {
    throw invalid("invalid-metadata", "metadata must be a JSON object")
  }
  if (new TextEncoder().encode(json).length > METADATA_MAX_BYTES) throw invalid("invalid-metadata", `metadata must be at most ${METADATA_MAX_BYTES} bytes of JSON`)
  // A round trip drops what JSON can't carry (functions, undefined), so every store keeps the same.
  return JSON.parse(json) as Record<string, unknown>
}

/** An email address, normalised (trimmed, lowercase): one `@`, a dotted domain, at most 254 characters. */
export function parseEmail(value: unknown): string {
  if (typeof value !== "string") throw invalid("invalid-email", "email is required")
  const email = normaliseEmail(value)
  if (email.length > 254 || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw invalid("invalid-email", "email must be an email address")
  return email
}

/**
 * Normalises an address as invitations store it, for comparing with a user's: trimmed, and
 * lowercased — except a character outside ASCII whose lowercase is ASCII (the Kelvin sign U+212A
 * → `k`), which stays as it is: a mailbox spelt with it is not `kim@…`, and must not
 * accept an invitation of it.
 */
export function normaliseEmail(email: string): string {
  return email.trim().replace(/[^\x00-\x7f]/gu, (c) => (/^[\x00-\x7f]+$/.test(c.toLowerCase()) ? c : c.toLowerCase())).replace(/[A-Z]+/g, (c) => c.toLowerCase())
}

/** An id from a path or an argument: a non-empty string of at most 255 characters. */
export function isId(value: unknown): value is string {
  return typeof value === "string" && value.length > 0 && value.length <= 255
}

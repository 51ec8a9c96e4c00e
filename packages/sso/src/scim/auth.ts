/**
 * SCIM bearer tokens: made once, shown once, kept only as a SHA-256 hash. A SCIM client
 * (Okta, Entra ID) sends one on every request; {@link authenticateScim} finds the token by
 * the hash of what was sent.
 * @module
 */
import { createHash, randomBytes } from "node:crypto"
import type { ScimToken, SsoStore } from "../store/types.js"
import { ScimError } from "./errors.js"

const PREFIX = "scim_"
/** `scim_` and 32 bytes in base64url (43 characters): anything else is refused before the store is asked. */
const TOKEN_SHAPE = /^scim_[A-Za-z0-9_-]{43}$/
/** Writing `lastUsedAt` on every request would turn each read into a write; once a minute is enough to show use. */
const TOUCH_EVERY_MS = 60_000

/**
 * The hash a token is stored and looked up by: SHA-256, hex.
 *
 * @example
 * ```ts
 * await store.addScimToken({ id, connectionId, organizationId, hash: hashScimToken(token), createdAt: new Date(), lastUsedAt: null })
 * ```
 */
export function hashScimToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex")
}

/**
 * A new SCIM bearer token: `scim_` and 32 random bytes, base64url. Show it to the
 * administrator once and store only {@link hashScimToken} of it.
 *
 * @example
 * ```ts
 * const token = newScimToken() // "scim_Xb4…"
 * ```
 */
export function newScimToken(): string {
  return PREFIX + randomBytes(32).toString("base64url")
}

const unauthorized = (detail: string, error?: "invalid_token") =>
  new ScimError(401, detail, undefined, { "WWW-Authenticate": error ? `Bearer realm="SCIM", error="${error}"` : `Bearer realm="SCIM"` })

/**
 * Finds the stored token a request's `Authorization: Bearer …` header names, or throws a
 * 401 {@link ScimError} (with `WWW-Authenticate`) when the header is missing, malformed, or
 * names no token (never made, or revoked).
 *
 * No constant-time comparison is needed: the store is asked for the SHA-256 of what was
 * sent, so how long a lookup takes depends on the hash, which an attacker cannot steer
 * towards a stored one byte by byte without breaking SHA-256's preimage resistance.
 *
 * @example
 * ```ts
 * const token = await authenticateScim(store, request.headers.get("authorization"))
 * const directory = directoryFor(token.organizationId)
 * ```
 */
export async function authenticateScim(store: SsoStore, authorization: string | null | undefined, now: Date = new Date()): Promise<ScimToken> {
  if (!authorization) throw unauthorized("A bearer token is required")
  const match = /^Bearer +(\S+) *$/i.exec(authorization)
  if (!match) throw unauthorized("A bearer token is required", "invalid_token")
  const token = match[1]!
  if (!TOKEN_SHAPE.test(token)) throw unauthorized("The bearer token is not valid", "invalid_token")
  const found = await store.findScimToken(hashScimToken(token))
  if (!found) throw unauthorized("The bearer token is not valid", "invalid_token")
  if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() >= TOUCH_EVERY_MS) await store.touchScimToken(found.id, now)
  return found
}

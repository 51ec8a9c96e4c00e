import { Verification } from "../../errors.js"
import { hmacSha256Hex, randomHex, sha256Hex, timingSafeEqual } from "../crypto.js"
import { store } from "../config/stores.js"
import { MAX_TOKEN_LENGTH } from "../email/token.js"
import type { RequestContext } from "../context.js"
import { passwordTokenIdentifier } from "../verification-identifiers.js"

/**
 * The password provider's emailed tokens, kept as verification tokens. Each purpose has its
 * own identifier prefix and its own hash, so a verification link cannot reset a password,
 * neither can be used as a magic sign-in link, and a link is bound to its address: the
 * stored row is looked up by (identifier, hash) and taken in one atomic read-and-delete.
 */
export type TokenPurpose = "verify" | "reset"

/**
 * What the store keeps for a token: an HMAC under the secret. Not a hash of the token and
 * the secret side by side, as magic links keep theirs (`sha256(token + secret)`, Auth.js's
 * format): a client could then write a "magic link" token whose plain hash is exactly this
 * row's, and open a password link as a sign-in link.
 */
function hashOf(ctx: RequestContext, purpose: TokenPurpose, token: string): Promise<string> {
  return hmacSha256Hex(ctx.config.secrets.join(","), `portcullis-password-${purpose}:${token}`)
}

/**
 * The form rows had before November 27, 2026 (`sha256(purpose + token + secret)`). Only
 * the password endpoints look for it, and only when the HMAC finds nothing, so a link
 * mailed just before an upgrade still works; the magic-link callback refuses these rows'
 * identifiers, so the form is no longer reachable from there. Links live a day at most:
 * this can go after a release.
 */
function legacyHashOf(ctx: RequestContext, purpose: TokenPurpose, token: string): Promise<string> {
  return sha256Hex(`portcullis-password-${purpose}:${token}:${ctx.config.secrets.join(",")}`)
}

/** A new token for `email`, stored hashed; the raw value goes only into the email. */
export async function issueToken(ctx: RequestContext, purpose: TokenPurpose, email: string, maxAgeSeconds: number) {
  const token = randomHex(32)
  const hashed = await hashOf(ctx, purpose, token)
  const identifier = passwordTokenIdentifier(purpose, email)
  const expires = new Date(Date.now() + maxAgeSeconds * 1000)
  await store(ctx.config.stores, "password").createVerificationToken({ identifier, token: hashed, expires })
  return { token, hashed, identifier, expires }
}

/** Deletes a token whose email could not be sent, so that link never works. */
export async function dropToken(ctx: RequestContext, identifier: string, hashed: string): Promise<void> {
  await store(ctx.config.stores, "password").useVerificationToken({ identifier, token: hashed })
}

/** Reads `token` and `email` from a link or form; `Verification` when either is missing or absurd. */
export function readLink(source: Record<string, unknown>): { token: string; email: string } {
  const { token, email } = source
  if (typeof token !== "string" || !token || token.length > MAX_TOKEN_LENGTH || typeof email !== "string" || !email || email.length > 320) {
    throw new Verification("The link is missing its token or address")
  }
  return { token, email }
}

/**
 * Takes the token out of storage — once: of two concurrent uses exactly one gets past —
 * and checks it is this purpose's, for this address, and still within its lifetime.
 * Returns the address it was issued for.
 */
export async function consumeToken(ctx: RequestContext, purpose: TokenPurpose, link: { token: string; email: string }): Promise<string> {
  const identifier = passwordTokenIdentifier(purpose, link.email)
  const tokens = store(ctx.config.stores, "password")
  let hashed = await hashOf(ctx, purpose, link.token)
  let stored = await tokens.useVerificationToken({ identifier, token: hashed })
  if (!stored) {
    hashed = await legacyHashOf(ctx, purpose, link.token)
    stored = await tokens.useVerificationToken({ identifier, token: hashed })
  }
  if (!stored) throw new Verification("The link is unknown or was already used")
  if (!(stored.expires instanceof Date) || stored.expires.getTime() <= Date.now()) throw new Verification("The link has expired")
  if (stored.identifier !== identifier || !timingSafeEqual(stored.token, hashed)) throw new Verification("The link does not match its address")
  return link.email
}

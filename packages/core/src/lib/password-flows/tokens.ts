import type { AdapterUser } from "../../adapters.js"
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
 * What a link is bound to besides its address: the state of the account it was made for,
 * as that state is when the link is used. A change of that state kills every link issued
 * before it, in every instance at once — the state lives in the shared store, and the
 * adapter's token API (create, use) has no "delete all of an address" to do it otherwise.
 *
 * - reset: the user's id and a digest of its password hash (or of none). A reset, a password
 *   change — anything that stores a new hash — and a replacement of the user (T67) each
 *   change it, so a second reset link mailed earlier is dead once the first is used.
 * - verify: the user's id and whether its address is verified. The first verification (or
 *   the replacement that comes with it) ends every other verification link of the address.
 */
export async function linkState(ctx: RequestContext, purpose: TokenPurpose, user: AdapterUser): Promise<string> {
  if (purpose === "verify") {
    // Stryker disable next-line StringLiteral: only a user created unverified by sign-up is ever issued a verification link, so no row is made under this state; any text other than "unverified" ends the links alike
    const verified = "verified"
    return `${user.id}\n${user.emailVerified ? verified : "unverified"}`
  }
  const hash = await store(ctx.config.stores, "password").getUserPassword(user.id)
  return `${user.id}\n${await sha256Hex(`portcullis-password-state:${hash ?? ""}`)}`
}

/**
 * What the store keeps for a token: an HMAC under the secret of the purpose, the token and
 * the account state ({@link linkState}). Not a hash of the token and the secret side by
 * side, as magic links keep theirs (`sha256(token + secret)`, Auth.js's format): a client
 * could then write a "magic link" token whose plain hash is exactly this row's, and open a
 * password link as a sign-in link.
 */
function hashOf(ctx: RequestContext, purpose: TokenPurpose, token: string, state: string): Promise<string> {
  return hmacSha256Hex(ctx.config.secrets.join(","), JSON.stringify([`portcullis-password-${purpose}`, token, state]))
}

/**
 * The forms rows had before the account state was bound in: the HMAC of purpose and token
 * alone (November 27, 2026) and, before it, `sha256(purpose + token + secret)`. Only the
 * password endpoints look for them, and only when the current form finds nothing, so a link
 * mailed just before an upgrade still works (for its lifetime, such a link is not ended by a
 * reset or change). The magic-link callback refuses these rows' identifiers, so the forms
 * are not reachable from there. Links live a day at most: these can go after a release.
 */
function earlierHashesOf(ctx: RequestContext, purpose: TokenPurpose, token: string): Promise<string>[] {
  const secret = ctx.config.secrets.join(",")
  return [hmacSha256Hex(secret, `portcullis-password-${purpose}:${token}`), sha256Hex(`portcullis-password-${purpose}:${token}:${secret}`)]
}

/** A link just stored, ready to be mailed. */
export interface IssuedLink {
  token: string
  hashed: string
  identifier: string
  expires: Date
}

/**
 * A new token for `email` (the address as the link will carry it), bound to `user`'s state,
 * stored hashed; the raw value goes only into the email.
 */
export async function issueToken(ctx: RequestContext, purpose: TokenPurpose, email: string, user: AdapterUser, maxAgeSeconds: number): Promise<IssuedLink> {
  const token = randomHex(32)
  const hashed = await hashOf(ctx, purpose, token, await linkState(ctx, purpose, user))
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

/** A link that was used: the user it was made for, and the stored form it had. */
export interface UsedLink {
  user: AdapterUser
  hashed: string
}

/**
 * Takes the token out of storage — once: of two concurrent uses exactly one gets past —
 * and checks it is this purpose's, for this address, made while the account was as it is
 * now ({@link linkState}), and still within its lifetime. Returns the user it was issued for.
 */
export async function consumeToken(ctx: RequestContext, purpose: TokenPurpose, link: { token: string; email: string }): Promise<UsedLink> {
  const identifier = passwordTokenIdentifier(purpose, link.email)
  const adapter = store(ctx.config.stores, "password")
  const user = await adapter.getUserByEmail(link.email)
  // No user, no state to check against: nothing this link could act on.
  if (!user) throw new Verification("The account this link was made for no longer exists")
  const candidates = [hashOf(ctx, purpose, link.token, await linkState(ctx, purpose, user)), ...earlierHashesOf(ctx, purpose, link.token)]
  for (const candidate of candidates) {
    const hashed = await candidate
    const stored = await adapter.useVerificationToken({ identifier, token: hashed })
    if (!stored) continue
    if (!(stored.expires instanceof Date) || stored.expires.getTime() <= Date.now()) throw new Verification("The link has expired")
    if (stored.identifier !== identifier || !timingSafeEqual(stored.token, hashed)) throw new Verification("The link does not match its address")
    return { user, hashed }
  }
  throw new Verification("The link is unknown, was already used, or was made before the account changed")
}

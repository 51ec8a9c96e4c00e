/**
 * Email change: a single-use token in the adapter's verification tokens (shared by every
 * instance; only its hash is stored), under an identifier that names the user and the new
 * address — so another user's token, or a token for another address, is simply not found.
 * The adapter's `useVerificationToken` takes the row in one step: of any number of
 * confirmations of one token, exactly one wins.
 * @module
 */
import type { RequestContext } from "../../context.js"
import { randomHex, sha256Hex } from "../../crypto.js"
import { AddressRefused, normalizeEmail } from "../../email/normalize.js"
import { notify } from "../../notify/index.js"
import { updateUser } from "../../login.js"
import { ExtensionRequestError } from "../errors.js"
import type { AccountEmailChange } from "../account-api.js"
import { signedIn, unsupported } from "./signed-in.js"

/**
 * The identifier of an email-change row: the user and the new address, so a token confirms
 * only that change of that user. `email-change:` is one of core's reserved namespaces
 * (`verification-identifiers.ts`): the magic-link callback never takes such a row.
 */
export function emailChangeIdentifier(userId: string, email: string): string {
  return `email-change:${userId}:${email}`
}

/** Longest a link may live: a day. */
const MAX_AGE_LIMIT = 24 * 60 * 60

function address(input: unknown): string {
  try {
    return normalizeEmail(input)
  } catch (error) {
    if (error instanceof AddressRefused) throw new ExtensionRequestError("invalid-email", "That is not an email address we can use", 422)
    throw error
  }
}

async function hashed(ctx: RequestContext, token: string): Promise<string> {
  return sha256Hex(`${token}${ctx.config.secrets[0] ?? ""}`)
}

export async function requestChange(ctx: RequestContext, email: unknown, maxAge: number): Promise<AccountEmailChange> {
  const { user, adapter } = await signedIn(ctx)
  if (!adapter.createVerificationToken || !adapter.useVerificationToken || !adapter.getUserByEmail || !adapter.updateUser) throw unsupported("createVerificationToken, useVerificationToken, getUserByEmail and updateUser")
  const next = address(email)
  if (user.email && next === user.email.toLowerCase()) throw new ExtensionRequestError("same-email", "That is your address already", 422)
  const owner = await adapter.getUserByEmail(next)
  if (owner) return { status: "taken" }
  const token = randomHex(32)
  const expires = new Date(Date.now() + Math.min(Math.max(60, maxAge), MAX_AGE_LIMIT) * 1000)
  await adapter.createVerificationToken({ identifier: emailChangeIdentifier(user.id, next), token: await hashed(ctx, token), expires })
  return { status: "token", token, expires }
}

export async function confirmChange(ctx: RequestContext, email: unknown, token: unknown): Promise<{ previous: string | null; email: string } | null> {
  const { user, adapter } = await signedIn(ctx)
  if (!adapter.useVerificationToken || !adapter.getUserByEmail || !adapter.updateUser) throw unsupported("useVerificationToken, getUserByEmail and updateUser")
  if (typeof token !== "string" || !/^[0-9a-f]{64}$/.test(token)) return null
  let next: string
  try {
    next = address(email)
  } catch {
    return null
  }
  const row = await adapter.useVerificationToken({ identifier: emailChangeIdentifier(user.id, next), token: await hashed(ctx, token) })
  if (!row || new Date(row.expires).getTime() <= Date.now()) return null
  // Taken since the link was mailed: the token is spent, the address stays with its owner.
  const owner = await adapter.getUserByEmail(next)
  if (owner && owner.id !== user.id) return null
  const previous = user.email ?? null
  try {
    await updateUser(ctx, adapter as Parameters<typeof updateUser>[1], { id: user.id, email: next, emailVerified: new Date() })
  } catch (error) {
    // Two confirmations for one address at once (two accounts' links, both opened): both
    // passed the read above, the unique index let one write. The other finds the address
    // taken, as it would have a moment later — a spent link, not an outage.
    const winner = await Promise.resolve(adapter.getUserByEmail!(next)).catch(() => null)
    if (winner && winner.id !== user.id) return null
    throw error
  }
  // The notice goes to the address the account had: whoever holds it learns of the change.
  if (previous) await notify(ctx, { id: user.id, email: previous }, "emailChanged")
  return { previous, email: next }
}

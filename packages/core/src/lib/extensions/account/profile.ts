/**
 * The profile (name, image) and deleting the account.
 * @module
 */
import type { AdapterUser } from "../../../adapters.js"
import type { RequestContext } from "../../context.js"
import { revokeAllSessions } from "../../password-flows/revoke.js"
import { updateUser } from "../../login.js"
import { ExtensionRequestError } from "../errors.js"
import type { AccountUser } from "../account-api.js"
import { signedIn, unsupported } from "./signed-in.js"
import { hasUnwritable } from "./text.js"

/** Longest name and image URL kept: a profile field, not a document. */
export const NAME_MAX = 100
export const IMAGE_MAX = 2048

export function accountUser(user: AdapterUser): AccountUser {
  return {
    id: user.id,
    email: user.email ?? null,
    emailVerified: user.emailVerified ? new Date(user.emailVerified).toISOString() : null,
    name: user.name ?? null,
    image: user.image ?? null,
  }
}

export async function me(ctx: RequestContext): Promise<AccountUser> {
  return accountUser((await signedIn(ctx)).user)
}

export async function updateProfile(ctx: RequestContext, patch: { name?: string | null; image?: string | null }): Promise<AccountUser> {
  const { user, adapter } = await signedIn(ctx)
  if (!adapter.updateUser) throw unsupported("updateUser")
  const change: { name?: string | null; image?: string | null } = {}
  if (patch.name !== undefined) change.name = bounded("name", patch.name, NAME_MAX)
  if (patch.image !== undefined) {
    change.image = bounded("image", patch.image, IMAGE_MAX)
    // Only https: an image URL is put in pages as-is, and `javascript:` or plain http have no place there.
    if (change.image !== null && !isHttpsUrl(change.image)) throw new ExtensionRequestError("invalid-image", "The image must be an https:// URL", 422)
  }
  // Through login.ts's helper, so the updateUser event fires as for every update of a user.
  return accountUser(await updateUser(ctx, adapter as Parameters<typeof updateUser>[1], { id: user.id, ...change }))
}

function bounded(field: string, value: unknown, max: number): string | null {
  if (value === null) return null
  if (typeof value !== "string") throw new ExtensionRequestError("invalid-input", `${field} must be text`, 422)
  const trimmed = value.trim()
  if (hasUnwritable(trimmed)) throw new ExtensionRequestError("invalid-input", `${field} may not hold control or direction-override characters`, 422)
  if ([...trimmed].length > max) throw new ExtensionRequestError("too-long", `${field} is at most ${max} characters`, 422)
  return trimmed || null
}

export function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === "https:" && !url.username && !url.password
  } catch {
    return false
  }
}

/**
 * Deletes the signed-in user: every session ends first (if that fails nothing was deleted),
 * then two-factor, then the user through the adapter (which removes its accounts,
 * authenticators and password with it).
 */
export async function deleteAccount(ctx: RequestContext): Promise<void> {
  const { user, adapter } = await signedIn(ctx)
  if (!adapter.deleteUser) throw unsupported("deleteUser")
  await revokeAllSessions(ctx, user.id)
  if (adapter.deleteTwoFactor) await adapter.deleteTwoFactor(user.id)
  await adapter.deleteUser(user.id)
}

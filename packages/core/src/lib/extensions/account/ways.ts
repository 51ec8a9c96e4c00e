/**
 * Ways in: the linked OAuth/OIDC accounts, the password, the passkeys and a verified address
 * with an email provider — counted so that no removal (unlink, passkey) takes the last.
 * @module
 */
import type { Adapter, AdapterUser } from "../../../adapters.js"
import type { RequestContext } from "../../context.js"
import { ExtensionRequestError } from "../errors.js"
import type { AccountLink, AccountPasskey, AccountWaysIn } from "../account-api.js"
import { signedIn, unsupported, withWaysLock } from "./signed-in.js"
import { hasUnwritable } from "./text.js"

/** Longest passkey name kept. */
export const PASSKEY_NAME_MAX = 64

export async function waysIn(ctx: RequestContext, user: AdapterUser, adapter: Adapter): Promise<AccountWaysIn> {
  const providers = ctx.config.providers
  const oauth = providers.filter((p) => p.type === "oauth" || p.type === "oidc")
  if (oauth.length && !adapter.getAccountByUserId) throw unsupported("getAccountByUserId")
  const links: AccountLink[] = await Promise.all(
    oauth.map(async (p) => ({ provider: p.id, name: p.name, type: p.type as "oauth" | "oidc", linked: !!(await adapter.getAccountByUserId!(user.id, p.id)) })),
  )
  const password = providers.some((p) => p.type === "password") && !!adapter.getUserPassword && !!(await adapter.getUserPassword(user.id))
  const passkeys = providers.some((p) => p.type === "webauthn") && adapter.listAuthenticatorsByUserId ? (await adapter.listAuthenticatorsByUserId(user.id)).length : 0
  const email = !!user.email && !!user.emailVerified && providers.some((p) => p.type === "email")
  const count = links.filter((l) => l.linked).length + (password ? 1 : 0) + passkeys + (email ? 1 : 0)
  const passkeyProvider = providers.find((p) => p.type === "webauthn")?.id ?? null
  return { links, password, passkeys, passkeyProvider, email, count }
}

function lastWayIn(): ExtensionRequestError {
  return new ExtensionRequestError("last-way-in", "This is your only way to sign in; add another before removing it", 409)
}

export async function unlink(ctx: RequestContext, provider: string): Promise<void> {
  const { user, adapter } = await signedIn(ctx)
  const configured = ctx.config.providers.find((p) => p.id === provider && (p.type === "oauth" || p.type === "oidc"))
  if (!configured || !adapter.getAccountByUserId) throw new ExtensionRequestError("not-found", "No such linked account", 404)
  if (!adapter.unlinkAccount) throw unsupported("unlinkAccount")
  await withWaysLock(adapter, user.id, async () => {
    const account = await adapter.getAccountByUserId!(user.id, provider)
    // Another user's account is not among this user's: the same answer as none.
    if (!account || account.userId !== user.id) throw new ExtensionRequestError("not-found", "No such linked account", 404)
    if ((await waysIn(ctx, user, adapter)).count <= 1) throw lastWayIn()
    await adapter.unlinkAccount!({ provider, providerAccountId: account.providerAccountId })
  })
}

export async function passkeys(ctx: RequestContext): Promise<AccountPasskey[]> {
  const { user, adapter } = await signedIn(ctx)
  if (!adapter.listAuthenticatorsByUserId) return []
  return (await adapter.listAuthenticatorsByUserId(user.id))
    .filter((a) => a.userId === user.id)
    .map((a) => ({
      id: a.credentialID,
      name: a.name ?? null,
      backedUp: !!a.credentialBackedUp,
      deviceType: a.credentialDeviceType,
      transports: (a.transports ?? "").split(",").filter(Boolean),
    }))
}

/** One of the user's own passkeys, or `not-found` (an unknown id and another user's answer alike). */
async function ownPasskey(adapter: Adapter, userId: string, id: string) {
  if (typeof id !== "string" || !id || id.length > 1024 || !adapter.getAuthenticator) throw new ExtensionRequestError("not-found", "No such passkey", 404)
  const found = await adapter.getAuthenticator(id)
  if (!found || found.userId !== userId) throw new ExtensionRequestError("not-found", "No such passkey", 404)
  return found
}

export async function renamePasskey(ctx: RequestContext, id: string, name: string): Promise<void> {
  const { user, adapter } = await signedIn(ctx)
  const trimmed = typeof name === "string" ? name.trim() : ""
  if (!trimmed || [...trimmed].length > PASSKEY_NAME_MAX || hasUnwritable(trimmed)) throw new ExtensionRequestError("invalid-input", `A passkey's name is 1 to ${PASSKEY_NAME_MAX} characters, none of them a control or direction-override character`, 422)
  await ownPasskey(adapter, user.id, id)
  if (!adapter.renameAuthenticator) throw unsupported("renameAuthenticator")
  await adapter.renameAuthenticator(id, trimmed)
}

export async function removePasskey(ctx: RequestContext, id: string): Promise<void> {
  const { user, adapter } = await signedIn(ctx)
  if (!adapter.deleteAuthenticator) throw unsupported("deleteAuthenticator")
  await withWaysLock(adapter, user.id, async () => {
    const found = await ownPasskey(adapter, user.id, id)
    if ((await waysIn(ctx, user, adapter)).count <= 1) throw lastWayIn()
    // The credential first: once it is gone it signs no one in, which is what the user
    // asked for; the account row after it is bookkeeping (a retry removes a leftover).
    await adapter.deleteAuthenticator!(id)
    const provider = ctx.config.providers.find((p) => p.type === "webauthn")
    if (provider && adapter.unlinkAccount) await adapter.unlinkAccount({ provider: provider.id, providerAccountId: found.providerAccountId })
  })
}

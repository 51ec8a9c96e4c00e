/**
 * Recovery an admin starts for a user, and what a user's page shows of their ways in: a
 * password reset link mailed through the password provider's own flow (the token stored
 * hashed and bound to the password, the link and mail the forgot-password ones), and the
 * user's linked accounts and passkeys.
 * @module
 */
import type { AdapterUser } from "../../../adapters.js"
import type { RequestContext } from "../../context.js"
import type { PasswordConfig } from "../../password/provider-types.js"
import { requireTrustedOrigin } from "../../origin-trust.js"
import { issueToken } from "../../password-flows/tokens.js"
import { mailerOf, sendPasswordMail } from "../../password-flows/mail.js"
import { ExtensionRequestError } from "../errors.js"
import type { AdminWaysIn } from "../admin-api.js"

/** How long a reset link works when the provider does not say (as forgot-password's). */
const RESET_MAX_AGE = 30 * 60

/**
 * Mails `user` a reset link, awaited (the admin is told when the sender fails; the timing of
 * this answer tells nobody anything they may not know). The same link forgot-password mails:
 * it stops working once the password changes, or once used.
 */
export async function sendPasswordReset(ctx: RequestContext, user: AdapterUser): Promise<{ expires: Date }> {
  const provider = ctx.config.providers.find((p): p is PasswordConfig => p.type === "password")
  if (!provider) throw new ExtensionRequestError("unsupported", "No password provider is configured", 409)
  if (!user.email) throw new ExtensionRequestError("no-email", "This user has no email address to send a reset link to", 409)
  requireTrustedOrigin(ctx, "Mailing a password reset link")
  // Asked before a token is stored: a configuration that cannot mail leaves none behind.
  try {
    mailerOf(ctx, provider)
  } catch {
    throw new ExtensionRequestError("unsupported", "The password provider has no mailer (nor is there an email provider) to send reset links", 409)
  }
  const link = await issueToken(ctx, "reset", user.email, user, provider.resetMaxAge ?? RESET_MAX_AGE)
  const url = new URL(`${ctx.authUrl}/password/reset`)
  url.searchParams.set("token", link.token)
  url.searchParams.set("email", user.email)
  await sendPasswordMail(ctx, provider, "resetEmail", { ...link, email: user.email, url: url.href })
  return { expires: link.expires }
}

/** The user's linked OAuth/OIDC accounts (one per configured provider) and passkey count. */
export async function waysOf(ctx: RequestContext, userId: string): Promise<AdminWaysIn> {
  const adapter = ctx.config.adapter
  const oauth = ctx.config.providers.filter((p) => p.type === "oauth" || p.type === "oidc")
  const accounts = adapter?.getAccountByUserId
    ? (
        await Promise.all(
          oauth.map(async (p) => {
            const found = await adapter!.getAccountByUserId!(userId, p.id)
            // An adapter answering another user's account is not this user's link.
            return found && found.userId === userId ? { provider: p.id, name: p.name, type: p.type as "oauth" | "oidc", providerAccountId: found.providerAccountId } : null
          }),
        )
      ).filter((a) => a !== null)
    : null
  const passkeys = ctx.config.providers.some((p) => p.type === "webauthn") && adapter?.listAuthenticatorsByUserId ? (await adapter.listAuthenticatorsByUserId(userId)).filter((a) => a.userId === userId).length : null
  return { accounts, passkeys }
}

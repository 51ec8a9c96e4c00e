/**
 * Whether a user has two-factor authentication on: what the password-only proofs of the
 * step-up (`/reauthenticate`, a password change) must ask before they count. For such a
 * user a sign-in with the password stops at the code, so the password alone must not make
 * a session fresh either — or a thief with a stolen session and the saved password (what an
 * infostealer takes) would plant a passkey that signs in without the code.
 * @module
 */
import type { ResolvedConfig } from "../config/resolved.js"

/** `true` when `userId` has an enabled two-factor record. A store failure rejects (the action fails, nothing is marked). */
export async function twoFactorOn(config: Pick<ResolvedConfig, "twoFactor">, userId: string): Promise<boolean> {
  const store = config.twoFactor?.store
  if (!store) return false
  return !!(await store.getTwoFactor(userId))?.enabled
}

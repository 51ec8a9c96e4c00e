/**
 * Enrollment, the server API behind an app's "security settings" page: start (a new secret
 * and its QR code, kept pending), confirm with a first code (2FA on, ten backup codes shown
 * once), disable and regenerate backup codes — both only with a current code, so a stolen
 * session alone cannot turn 2FA off or mint itself backup codes.
 * @module
 */
import { InvalidConfig, TwoFactorCodeInvalid, TwoFactorStateError } from "../../errors.js"
import { createBackupCodes, createTotpEnrollment, verifyTotp, type TotpEnrollment } from "../../two-factor.js"
import type { ResolvedConfig } from "../config/resolve.js"
import type { TwoFactorStore } from "./options.js"
import { openSecret, sealSecret } from "./secret.js"
import { checkCode } from "./verify.js"
import { notify } from "../notify/index.js"

/** The user's two-factor state, for a settings page. */
export interface TwoFactorStatus {
  enabled: boolean
  /** An enrollment was started and awaits its first code. */
  pending: boolean
  backupCodesLeft: number
}

function storeOf(config: ResolvedConfig): TwoFactorStore {
  if (!config.twoFactor) throw new InvalidConfig("Two-factor enrollment needs the twoFactor option and an adapter with the two-factor capability")
  return config.twoFactor.store
}

function userIdOf(userId: unknown): string {
  if (typeof userId !== "string" || !userId) throw new TypeError("userId must be a non-empty string")
  return userId
}

export async function twoFactorStatus(config: ResolvedConfig, userId: string): Promise<TwoFactorStatus> {
  const record = await storeOf(config).getTwoFactor(userIdOf(userId))
  return { enabled: !!record?.enabled, pending: !!record && !record.enabled, backupCodesLeft: record?.enabled ? record.backupCodes.length : 0 }
}

/**
 * A new pending enrollment: the secret is stored sealed, not yet enabled. Starting again
 * replaces a pending one; with 2FA already on it is refused (disable first).
 */
export async function startEnrollment(config: ResolvedConfig, input: { userId: string; account: string }): Promise<TotpEnrollment> {
  const store = storeOf(config)
  const userId = userIdOf(input.userId)
  const existing = await store.getTwoFactor(userId)
  if (existing?.enabled) throw new TwoFactorStateError("Two-factor authentication is already on; disable it first to enroll again")
  const issuer = config.twoFactor?.issuer ?? config.siteUrl?.hostname ?? "Portcullis"
  const enrollment = await createTotpEnrollment({ issuer, account: input.account })
  await store.setTwoFactor({ userId, secret: await sealSecret(config, enrollment.secret), enabled: false, lastUsedStep: null, backupCodes: [] })
  return enrollment
}

/** Confirms the pending enrollment with a code from the app: 2FA on, backup codes returned once. */
export async function confirmEnrollment(config: ResolvedConfig, input: { userId: string; code: string }): Promise<{ backupCodes: string[] }> {
  const store = storeOf(config)
  const userId = userIdOf(input.userId)
  const record = await store.getTwoFactor(userId)
  if (!record || record.enabled) throw new TwoFactorStateError(record ? "Two-factor authentication is already on" : "No enrollment was started")
  const secret = await openSecret(config, record.secret)
  if (!secret) throw new TwoFactorStateError("The pending enrollment cannot be read (the secret changed); start again")
  const result = typeof input.code === "string" ? verifyTotp({ secret, code: input.code }) : ({ valid: false } as const)
  if (!result.valid) throw new TwoFactorCodeInvalid("The code does not match the enrolled secret")
  // The step is claimed first: of two confirmations at once (a double submit) one turns 2FA
  // on, and the other is refused instead of answering backup codes that were overwritten.
  if (!(await store.useTwoFactorStep(userId, result.step))) throw new TwoFactorCodeInvalid("The code was used already")
  const { codes, hashes } = await createBackupCodes()
  await store.setTwoFactor({ ...record, enabled: true, lastUsedStep: result.step, backupCodes: hashes })
  await notify(config, userId, "twoFactorEnabled")
  return { backupCodes: codes }
}

/** Re-authentication: a current TOTP or backup code of an enabled record, used up. */
async function reauthenticate(config: ResolvedConfig, store: TwoFactorStore, userId: string, code: unknown) {
  const record = await store.getTwoFactor(userId)
  if (!record?.enabled) throw new TwoFactorStateError("Two-factor authentication is off")
  const checked = await checkCode(config, store, record, code)
  if (!checked.ok) throw new TwoFactorCodeInvalid(`The code was refused (${checked.reason})`)
  return record
}

/** Turns 2FA off (the record is deleted) after a current code. */
export async function disable(config: ResolvedConfig, input: { userId: string; code: string }): Promise<void> {
  const store = storeOf(config)
  const userId = userIdOf(input.userId)
  await reauthenticate(config, store, userId, input.code)
  await store.deleteTwoFactor(userId)
  await notify(config, userId, "twoFactorDisabled")
}

/** Ten new backup codes (the old ones stop working) after a current code. */
export async function regenerateBackupCodes(config: ResolvedConfig, input: { userId: string; code: string }): Promise<{ backupCodes: string[] }> {
  const store = storeOf(config)
  const userId = userIdOf(input.userId)
  await reauthenticate(config, store, userId, input.code)
  // Read again: re-authentication moved lastUsedStep or used a backup code.
  const current = await store.getTwoFactor(userId)
  if (!current?.enabled) throw new TwoFactorStateError("Two-factor authentication was turned off meanwhile")
  const { codes, hashes } = await createBackupCodes()
  await store.setTwoFactor({ ...current, backupCodes: hashes })
  await notify(config, userId, "backupCodesRegenerated")
  return { backupCodes: codes }
}

/**
 * Enrollment, the server API behind an app's "security settings" page: start (a new secret
 * and its QR code, kept pending), confirm with a first code (2FA on, ten backup codes shown
 * once), disable and regenerate backup codes — both only with a current code, so a stolen
 * session alone cannot turn 2FA off or mint itself backup codes. Every code taken here counts
 * against the same per-user caps as the sign-in step, so that code cannot be guessed either.
 * @module
 */
import { InvalidConfig, TwoFactorCodeInvalid, TwoFactorStateError } from "../../errors.js"
import { createBackupCodes, createTotpEnrollment, verifyTotp, type TotpEnrollment } from "../../two-factor.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { lockedOut } from "./ledger.js"
import type { ResolvedTwoFactor } from "./options.js"
import { openSecret, sealSecret } from "./secret.js"
import { checkCode, isGuess, type CodeCheck } from "./verify.js"
import { notify } from "../notify/index.js"

/** The user's two-factor state, for a settings page. */
export interface TwoFactorStatus {
  enabled: boolean
  /** An enrollment was started and awaits its first code. */
  pending: boolean
  backupCodesLeft: number
}

function settingsOf(config: ResolvedConfig): ResolvedTwoFactor {
  if (!config.twoFactor) throw new InvalidConfig("Two-factor enrollment needs the twoFactor option and an adapter with the two-factor capability")
  return config.twoFactor
}

function userIdOf(userId: unknown): string {
  if (typeof userId !== "string" || !userId) throw new TypeError("userId must be a non-empty string")
  return userId
}

export async function twoFactorStatus(config: ResolvedConfig, userId: string): Promise<TwoFactorStatus> {
  const record = await settingsOf(config).store.getTwoFactor(userIdOf(userId))
  return { enabled: !!record?.enabled, pending: !!record && !record.enabled, backupCodesLeft: record?.enabled ? record.backupCodes.length : 0 }
}

/**
 * A new pending enrollment: the secret is stored sealed, not yet enabled. Starting again
 * replaces a pending one; with 2FA already on it is refused (disable first).
 */
export async function startEnrollment(config: ResolvedConfig, input: { userId: string; account: string }): Promise<TotpEnrollment> {
  const { store } = settingsOf(config)
  const userId = userIdOf(input.userId)
  const existing = await store.getTwoFactor(userId)
  if (existing?.enabled) throw new TwoFactorStateError("Two-factor authentication is already on; disable it first to enroll again")
  const issuer = config.twoFactor?.issuer ?? config.siteUrl?.hostname ?? "Portcullis"
  const enrollment = await createTotpEnrollment({ issuer, account: input.account })
  await store.setTwoFactor({ userId, secret: await sealSecret(config, enrollment.secret), enabled: false, lastUsedStep: null, backupCodes: [] })
  return enrollment
}

/**
 * What the code-taking calls receive: the signed-in user, the code, and the client's
 * address when the app knows it (for the rate limiter's per-address rule).
 */
export interface CodeInput {
  userId: string
  code: string
  /** The client's address, as `handle(request, { clientAddress })` takes it; optional. */
  address?: string
}

/**
 * Confirms the pending enrollment with a code from the app: 2FA on, backup codes returned
 * once. Guessing is capped as at sign-in ({@link judgeCapped}).
 */
export async function confirmEnrollment(config: ResolvedConfig, input: CodeInput): Promise<{ backupCodes: string[] }> {
  const settings = settingsOf(config)
  const { store } = settings
  const userId = userIdOf(input.userId)
  const record = await store.getTwoFactor(userId)
  if (!record || record.enabled) throw new TwoFactorStateError(record ? "Two-factor authentication is already on" : "No enrollment was started")
  const secret = await openSecret(config, record.secret)
  if (!secret) throw new TwoFactorStateError("The pending enrollment cannot be read (the secret changed); start again")
  let step: number | undefined
  await judgeCapped(config, settings, userId, input.address, async (): Promise<CodeCheck> => {
    // verifyTotp answers "malformed" for a code that is no string (the input is the app's).
    const totp = verifyTotp({ secret, code: input.code })
    if (!totp.valid) return { ok: false, reason: totp.reason }
    step = totp.step
    return { ok: true, used: "totp" }
  })
  if (step === undefined) throw new TwoFactorCodeInvalid("The code does not match the enrolled secret")
  // The step is claimed first: of two confirmations at once (a double submit) one turns 2FA
  // on, and the other is refused instead of answering backup codes that were overwritten.
  if (!(await store.useTwoFactorStep(userId, step))) throw new TwoFactorCodeInvalid("The code was used already")
  const { codes, hashes } = await createBackupCodes()
  await store.setTwoFactor({ ...record, enabled: true, lastUsedStep: step, backupCodes: hashes })
  await notify(config, userId, "twoFactorEnabled")
  return { backupCodes: codes }
}

/**
 * One code of `userId` judged under the same caps as the sign-in step: the rate limiter's
 * (per user, and per address when known; when the limiter is on) and the user's wrong-code
 * slots in the shared store, which hold with the limiter off and across instances. A code
 * is refused unjudged (`RateLimited`, the right one too) while the user is locked; a code
 * that passes gives its slot back, so only wrong codes count. Without this, a stolen
 * session could try every code until one turned 2FA off.
 */
async function judgeCapped<T extends CodeCheck>(config: ResolvedConfig, settings: ResolvedTwoFactor, userId: string, address: string | undefined, judge: () => Promise<T>): Promise<T> {
  await config.rateLimit?.checkTwoFactor(userId, address)
  const slot = await settings.ledger.userAttempt(userId)
  if (!slot) {
    // Stryker disable next-line StringLiteral,ObjectLiteral: the log line's key and details only (test/logs covers the limiter)
    config.logLimiter.warn("two-factor-code-refused", `${userId}:locked`, { userId, reason: "locked" })
    throw lockedOut(userId)
  }
  const result = await judge()
  if (!isGuess(result)) {
    // Best effort: a slot not given back only counts as one wrong code more.
    // Stryker disable next-line ArrowFunction,StringLiteral,ObjectLiteral,ConditionalExpression: the debug line of a failed release only; the failure is swallowed either way
    await settings.ledger.release(slot).catch((error: unknown) => config.logger.debug("two_factor_slot_kept", { error: error instanceof Error ? error.message : String(error) }))
  }
  // Stryker disable next-line StringLiteral,ObjectLiteral: the log line's key and details only (test/logs covers the limiter)
  if (!result.ok) config.logLimiter.warn("two-factor-code-refused", `${userId}:${result.reason}`, { userId, reason: result.reason })
  return result
}

/** Re-authentication: a current TOTP or backup code of an enabled record, used up, under the caps. */
async function reauthenticate(config: ResolvedConfig, settings: ResolvedTwoFactor, input: CodeInput) {
  const userId = userIdOf(input.userId)
  const record = await settings.store.getTwoFactor(userId)
  if (!record?.enabled) throw new TwoFactorStateError("Two-factor authentication is off")
  const checked = await judgeCapped(config, settings, userId, input.address, () => checkCode(config, settings.store, record, input.code))
  if (!checked.ok) throw new TwoFactorCodeInvalid(`The code was refused (${checked.reason})`)
  return record
}

/** Turns 2FA off (the record is deleted) after a current code. */
export async function disable(config: ResolvedConfig, input: CodeInput): Promise<void> {
  const settings = settingsOf(config)
  await reauthenticate(config, settings, input)
  await settings.store.deleteTwoFactor(input.userId)
  await notify(config, input.userId, "twoFactorDisabled")
}

/** Ten new backup codes (the old ones stop working) after a current code. */
export async function regenerateBackupCodes(config: ResolvedConfig, input: CodeInput): Promise<{ backupCodes: string[] }> {
  const settings = settingsOf(config)
  const { store } = settings
  await reauthenticate(config, settings, input)
  // Read again: re-authentication moved lastUsedStep or used a backup code.
  const current = await store.getTwoFactor(input.userId)
  if (!current?.enabled) throw new TwoFactorStateError("Two-factor authentication was turned off meanwhile")
  const { codes, hashes } = await createBackupCodes()
  await store.setTwoFactor({ ...current, backupCodes: hashes })
  await notify(config, input.userId, "backupCodesRegenerated")
  return { backupCodes: codes }
}

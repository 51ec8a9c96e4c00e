/**
 * One code against a user's two-factor record: a TOTP code (its time step recorded as used,
 * atomically) or a backup code (removed, atomically). Shared by the sign-in step and the
 * enrollment API's re-authentication.
 * @module
 */
import type { AdapterTwoFactor } from "../../adapters.js"
import { useBackupCode, verifyTotp } from "../../two-factor.js"
import type { KeyRing } from "../jwt/keys.js"
import type { TwoFactorStore } from "./options.js"
import { openSecret } from "./secret.js"

/** How a code was judged; `used` names the kind of code that passed. */
export type CodeCheck = { ok: true; used: "totp" | "backup" } | { ok: false; reason: "malformed" | "wrong" | "reused" | "unreadable" }

/** A six-digit code (spaces and dashes aside) is a TOTP code; anything else may be a backup code. */
const TOTP_SHAPE = /^\d{6}$/

export async function checkCode(
  config: { keys: KeyRing; secrets: string[] },
  store: TwoFactorStore,
  record: AdapterTwoFactor,
  code: unknown,
): Promise<CodeCheck> {
  if (typeof code !== "string" || !code.trim() || code.length > 64) return { ok: false, reason: "malformed" }
  if (TOTP_SHAPE.test(code.replace(/[\s-]/g, ""))) {
    const secret = await openSecret(config, record.secret)
    // A secret sealed under a secret no longer configured: the record needs re-enrolment.
    if (!secret) return { ok: false, reason: "unreadable" }
    const result = verifyTotp({ secret, code, lastUsedStep: record.lastUsedStep })
    if (!result.valid) return { ok: false, reason: result.reason }
    // The record read may be stale: the store decides which of concurrent uses of this step wins.
    return (await store.useTwoFactorStep(record.userId, result.step)) ? { ok: true, used: "totp" } : { ok: false, reason: "reused" }
  }
  const index = await useBackupCode(code, record.backupCodes)
  if (index === -1) return { ok: false, reason: "wrong" }
  return (await store.useTwoFactorBackupCode(record.userId, record.backupCodes[index]!)) ? { ok: true, used: "backup" } : { ok: false, reason: "reused" }
}

/**
 * Whether a refused code counts against its user's wrong-code cap: a `wrong` or `malformed`
 * one. A code that passed does not, nor a `reused` one (that code was right: a double
 * submit, or a copy that lost the race to use it — a guesser cannot produce one), nor an
 * `unreadable` secret (the configuration's fault, not the client's).
 */
export function isGuess(check: CodeCheck): boolean {
  return !check.ok && (check.reason === "wrong" || check.reason === "malformed")
}

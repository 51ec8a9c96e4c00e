/**
 * Recovery for a user who lost their second factor and their backup codes: a server function
 * for the app's support staff (or an admin page) that removes the user's two-factor record,
 * ends the user's sessions, records who did it and why (the `twoFactorReset` event) and tells
 * the user (a `twoFactorReset` notice). The app decides who may call it and how the user's
 * identity was checked; docs/two-factor.md, "Lost your authenticator".
 * @module
 */
import { InvalidConfig, TwoFactorStateError } from "../../errors.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { notify } from "../notify/index.js"
import { audit } from "../audit/index.js"
import { revokeAllSessions } from "../password-flows/revoke.js"
import type { TwoFactorResetEvent } from "./reset-event.js"

export type { TwoFactorResetEvent }

/** What `resetTwoFactor` is told: whose second factor, and the record of why. */
export interface TwoFactorResetInput {
  userId: string
  /** Why, for the audit record (e.g. "identity checked by phone, ticket 4711"). Required; at most 500 characters. */
  reason: string
  /** Who did it (the support agent's id), for the audit record. */
  actor?: string
}

/** What `resetTwoFactor` answers. */
export interface TwoFactorResetResult {
  wasEnabled: boolean
  sessionsRevoked: number
}

function checked(input: TwoFactorResetInput): Required<Pick<TwoFactorResetInput, "userId" | "reason">> & { actor: string | undefined } {
  const { userId, reason, actor } = input ?? ({} as TwoFactorResetInput)
  if (typeof userId !== "string" || !userId) throw new TypeError("userId must be a non-empty string")
  // No NUL: PostgreSQL refuses it in text, so the stored audit record of the reset would be lost.
  if (typeof reason !== "string" || !reason.trim() || reason.length > 500 || reason.includes("\u0000")) throw new TypeError("reason must be a non-empty string of at most 500 characters without NUL: it is the audit record")
  if (actor !== undefined && (typeof actor !== "string" || actor.length > 200 || actor.includes("\u0000"))) throw new TypeError("actor must be a string of at most 200 characters without NUL")
  return { userId, reason: reason.trim(), actor }
}

/**
 * Removes `userId`'s two-factor record (on or pending), then ends every session of the user
 * — whoever holds one may be the reason the user lost access — fires `twoFactorReset` and
 * mails the user a notice. The user signs in with their first factor and may enrol again.
 *
 * @throws `TwoFactorStateError` when the user has no two-factor record; `InvalidConfig`
 * without the `twoFactor` option; `AdapterError` when the store fails (nothing was removed,
 * or — when the sessions failed — the record is gone and the call may be repeated).
 */
export async function resetTwoFactor(config: ResolvedConfig, input: TwoFactorResetInput): Promise<TwoFactorResetResult> {
  const store = config.twoFactor?.store
  if (!store) throw new InvalidConfig("Resetting two-factor authentication needs the twoFactor option and an adapter with the two-factor capability")
  const { userId, reason, actor } = checked(input)
  const record = await store.getTwoFactor(userId)
  if (!record) throw new TwoFactorStateError("This user has no two-factor authentication to reset")
  await store.deleteTwoFactor(userId)
  // Remembered devices need nothing: their mark is bound to the deleted secret.
  const sessionsRevoked = await revokeAllSessions({ config }, userId)
  await config.events.twoFactorReset({ userId, reason, actor, wasEnabled: record.enabled, sessionsRevoked, time: new Date() })
  await audit(config, { type: "twoFactorReset", outcome: "success", userId, actor, reason, details: { wasEnabled: record.enabled, sessionsRevoked } })
  await notify(config, userId, "twoFactorReset")
  return { wasEnabled: record.enabled, sessionsRevoked }
}

/**
 * The shape of the `twoFactorReset` event, apart from the recovery function so the public
 * types can name it without importing the configuration.
 * @module
 */

/** The `twoFactorReset` event: the audit record of one reset. */
export interface TwoFactorResetEvent {
  userId: string
  reason: string
  actor: string | undefined
  /** Whether 2FA was on (`false`: only a pending enrollment was removed). */
  wasEnabled: boolean
  /** How many sessions were ended (0 with JWT sessions without `session.registry`, which cannot be revoked). */
  sessionsRevoked: number
  time: Date
}

/**
 * The kinds of security notice: a leaf module, so the email sender's types and the catalogs
 * can name them without importing the rest of `notify/`.
 * @module
 */

/**
 * What a security notice is about. `emailChanged` is for the email-change flow (sent to the
 * old address); `twoFactorReset` is sent by `resetTwoFactor`, the recovery function for a
 * user who lost their second factor.
 */
export type SecurityNoticeKind =
  | "passwordChanged"
  | "passwordReset"
  | "twoFactorEnabled"
  | "twoFactorDisabled"
  | "backupCodesRegenerated"
  | "passkeyAdded"
  | "emailChanged"
  | "newDevice"
  | "twoFactorReset"

/** Every kind, in the order the docs list them. */
export const securityNoticeKinds: readonly SecurityNoticeKind[] = [
  "passwordChanged",
  "passwordReset",
  "twoFactorEnabled",
  "twoFactorDisabled",
  "backupCodesRegenerated",
  "passkeyAdded",
  "emailChanged",
  "newDevice",
  "twoFactorReset",
]

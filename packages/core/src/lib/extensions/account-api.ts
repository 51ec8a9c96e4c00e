/**
 * The account facet of the extension API (`req.account`, `call.account`): what an account
 * center needs of core — the signed-in user's profile, ways in, passkeys, password,
 * two-factor, sessions, email change and deletion — each a wrapper of core's own operation.
 * A leaf of types: the implementation (`account/*.ts`) is loaded with `import()` on the
 * first call, so a configuration whose extensions never touch it never loads it.
 *
 * Every method acts on the request's own session, read fresh; none takes a user id, so no
 * call can reach another user's records (an id of someone else's session, passkey or
 * account is simply not among those searched). Refusals are `ExtensionRequestError`s with
 * a stable code (`last-way-in`, `not-found`, `invalid-input`, `unsupported`, …); outages are
 * `ServiceUnavailable` (503), never a half-written record.
 * @module
 */

/** The signed-in user as the account center shows them. */
export interface AccountUser {
  id: string
  email: string | null
  /** When the address was verified (ISO 8601), or `null`. */
  emailVerified: string | null
  name: string | null
  image: string | null
}

/** One configured provider and whether the signed-in user is linked to it. */
export interface AccountLink {
  /** The provider's id (`github`). */
  provider: string
  /** Its display name (`GitHub`). */
  name: string
  type: "oauth" | "oidc"
  linked: boolean
}

/** What the user can sign in with: used to refuse removing the last of them. */
export interface AccountWaysIn {
  links: AccountLink[]
  password: boolean
  passkeys: number
  /** The id of the configured passkey (WebAuthn) provider, for adding one; `null` without. */
  passkeyProvider: string | null
  /** A verified address and an email (magic-link) provider configured. */
  email: boolean
  /** The total count: linked accounts + password + passkeys + email. */
  count: number
}

/** One passkey of the signed-in user. */
export interface AccountPasskey {
  /** The credential id (base64url): what rename and remove take. */
  id: string
  name: string | null
  backedUp: boolean
  deviceType: string
  transports: string[]
}

/** One session of the signed-in user (`SessionInfo`, dates as ISO 8601). */
export interface AccountSession {
  id: string
  current: boolean
  createdAt: string | null
  lastSeenAt: string | null
  expires: string
  userAgent: string | null
  ipAddress: string | null
}

/** Two-factor state; with `pending`, the enrollment's QR and key survive until confirmed. */
export interface AccountTwoFactor {
  /** Whether the configuration has the `twoFactor` option. */
  available: boolean
  enabled: boolean
  pending: boolean
  backupCodesLeft: number
}

/** A TOTP enrollment to show: the QR code (SVG), the URI it holds and the key to type in. */
export interface AccountEnrollment {
  qrSvg: string
  uri: string
  /** The secret in base32, grouped in fours for typing. */
  manualKey: string
}

/** An email change started: the token for the link to mail to the new address, or why none. */
export type AccountEmailChange =
  | { status: "token"; token: string; expires: Date }
  /** The address belongs to another account: mail the new address saying so, answer alike. */
  | { status: "taken" }

/** What core offers an account center (`ExtensionTools.account`). Every method needs a signed-in session. */
export interface AccountApi {
  /** The signed-in user. */
  user(): Promise<AccountUser>
  /** Changes the name and/or image (`null` clears). The caller validates; core bounds lengths. */
  updateProfile(patch: { name?: string | null; image?: string | null }): Promise<AccountUser>
  /** Every way in, with each configured OAuth/OIDC provider and whether it is linked. */
  waysIn(): Promise<AccountWaysIn>
  /** Unlinks the provider's account; `last-way-in` (409) when it is the only way in, `not-found` when not linked. */
  unlink(provider: string): Promise<void>
  passkeys(): Promise<AccountPasskey[]>
  /** Renames one of the user's passkeys; `not-found` for another user's or an unknown id; `unsupported` without the adapter's `renameAuthenticator`. */
  renamePasskey(id: string, name: string): Promise<void>
  /** Removes one of the user's passkeys and its account row; `last-way-in` for the only way in. */
  removePasskey(id: string): Promise<void>
  /** Whether a password provider is configured and the user has a password. */
  password(): Promise<{ available: boolean; set: boolean }>
  /** Sets a first password (the route must be stepped up): the policy, strength and breached checks; other sessions end. */
  setPassword(password: string): Promise<void>
  /** Changes the password given the current one; the other sessions end, as core's change does. */
  changePassword(current: string, next: string): Promise<void>
  twoFactor(): Promise<AccountTwoFactor>
  /** Starts (or restarts) enrollment: a new pending secret. */
  startTwoFactor(): Promise<AccountEnrollment>
  /** The pending enrollment again (after a wrong code), or `null` when none is pending. */
  pendingTwoFactor(): Promise<AccountEnrollment | null>
  confirmTwoFactor(code: string): Promise<{ backupCodes: string[] }>
  disableTwoFactor(code: string): Promise<void>
  regenerateBackupCodes(code: string): Promise<{ backupCodes: string[] }>
  sessions(): Promise<AccountSession[]>
  /** Revokes one of the user's other sessions; `false` when the id is none of theirs (or the current one: sign out instead). */
  revokeSession(id: string): Promise<boolean>
  /** Revokes every other session of the user; how many. */
  revokeOtherSessions(): Promise<number>
  /** Starts an email change to `email` (normalized): a single-use token in the adapter's verification tokens. */
  requestEmailChange(email: string, maxAge: number): Promise<AccountEmailChange>
  /**
   * Spends the token mailed for `email` (once, across instances) and changes the address,
   * marked verified; the old address gets the `emailChanged` notice. `null` when the token
   * is unknown, spent, expired, another user's, or the address was taken meanwhile.
   */
  confirmEmailChange(email: string, token: string): Promise<{ previous: string | null; email: string } | null>
  /** Deletes the user through the adapter after revoking every session and removing two-factor. */
  deleteAccount(): Promise<void>
}

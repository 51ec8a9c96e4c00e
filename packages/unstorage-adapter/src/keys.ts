/**
 * Where each record lives in the storage. Every variable part of a key (an id, an email,
 * a token) is replaced by the SHA-256 of it, in hex, so keys are:
 * - safe on every driver (unstorage turns `/` into `:` and cuts keys at `?`; the
 *   filesystem driver makes each `:` segment a directory and may fold case),
 * - exact and case-sensitive (emails, base64 credential ids),
 * - of fixed length (file names stay under 255 bytes),
 * - free of emails and tokens, for stores whose key listings are visible to operators.
 * @module
 */

/** The kinds of records and indexes, as they appear in keys. */
export type RecordKind =
  | "user"
  | "user-by-email"
  | "account"
  | "user-accounts"
  | "session"
  | "user-sessions"
  | "verification-token"
  | "authenticator"
  | "user-authenticators"
  | "user-password"

const encoder = new TextEncoder()

/** Hex SHA-256 of the parts, unambiguously joined (JSON array), via Web Crypto. */
async function digest(parts: readonly string[]): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(JSON.stringify(parts))))
  let hex = ""
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0")
  return hex
}

/** Builds keys under `prefix` (normalised to end in one `:`, or empty). */
export function unstorageKeys(prefix = "portcullis") {
  const base = prefix.replace(/:+$/, "")
  const key = async (kind: RecordKind, ...parts: string[]) => `${base ? `${base}:` : ""}${kind}:${await digest(parts)}`
  return {
    /** `<prefix>:user:<h(id)>` → the user. */
    user: (id: string) => key("user", id),
    /** `<prefix>:user-by-email:<h(email)>` → the user id. */
    userByEmail: (email: string) => key("user-by-email", email),
    /** `<prefix>:account:<h(provider, providerAccountId)>` → the account. */
    account: (provider: string, providerAccountId: string) => key("account", provider, providerAccountId),
    /** `<prefix>:user-accounts:<h(userId)>` → `[provider, providerAccountId][]`. */
    userAccounts: (userId: string) => key("user-accounts", userId),
    /** `<prefix>:session:<h(sessionToken)>` → the session. */
    session: (sessionToken: string) => key("session", sessionToken),
    /** `<prefix>:user-sessions:<h(userId)>` → the user's session tokens. */
    userSessions: (userId: string) => key("user-sessions", userId),
    /** `<prefix>:verification-token:<h(identifier, token)>` → the token. */
    verificationToken: (identifier: string, token: string) => key("verification-token", identifier, token),
    /** `<prefix>:authenticator:<h(credentialID)>` → the authenticator. */
    authenticator: (credentialID: string) => key("authenticator", credentialID),
    /** `<prefix>:user-authenticators:<h(userId)>` → the user's credential ids. */
    userAuthenticators: (userId: string) => key("user-authenticators", userId),
    /** `<prefix>:user-password:<h(userId)>` → `{ hash }`, the user's password hash (the password provider). */
    userPassword: (userId: string) => key("user-password", userId),
  }
}

export type UnstorageKeys = ReturnType<typeof unstorageKeys>

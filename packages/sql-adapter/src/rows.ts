/**
 * Conversions between rows and adapter records. Drivers differ in what they hand back
 * (pg: Date and int8 as string; mysql2: Date and booleans as 0/1; node:sqlite: text and
 * integers), so every read goes through these.
 * @module
 */
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@portcullis/core/adapters"

type Row = Record<string, unknown>

/** Token columns of the accounts table, besides the identifying ones. */
export const ACCOUNT_TOKEN_COLUMNS = [
  "refresh_token", "access_token", "expires_at", "token_type", "scope", "id_token", "session_state",
] as const

const USER_COLUMNS = ["name", "email", "emailVerified", "image"] as const

export function toDate(value: unknown): Date {
  if (value instanceof Date) return value
  if (typeof value === "string" || typeof value === "number") return new Date(value)
  if (typeof value === "bigint") return new Date(Number(value))
  throw new TypeError(`expected a date column, got ${typeof value}`)
}

const toNullableDate = (value: unknown) => (value == null ? null : toDate(value))
export const toBoolean = (value: unknown) => value === true || value === 1 || value === 1n || value === "1" || value === "t"
const toNullableString = (value: unknown) => (value == null ? null : String(value))

export function userFromRow(row: Row): AdapterUser {
  return {
    id: String(row.id),
    name: toNullableString(row.name),
    email: row.email as string,
    emailVerified: toNullableDate(row.emailVerified),
    image: toNullableString(row.image),
  }
}

/** The user columns present in a patch, for an UPDATE (unknown fields have no column). */
export function userPatch(user: Partial<AdapterUser>): Row {
  const patch: Row = {}
  for (const column of USER_COLUMNS) if (user[column] !== undefined) patch[column] = user[column]
  return patch
}

/**
 * Absent token fields are left out rather than returned as `null`: `TokenSet` types them
 * as optional strings, and a read then equals what was linked.
 */
export function accountFromRow(row: Row): AdapterAccount {
  const account: AdapterAccount = {
    userId: String(row.userId),
    type: row.type as AdapterAccount["type"],
    provider: String(row.provider),
    providerAccountId: String(row.providerAccountId),
  }
  const tokens: Record<string, string | number> = {}
  for (const column of ACCOUNT_TOKEN_COLUMNS) {
    const value = row[column]
    if (value == null) continue
    tokens[column] = column === "expires_at" ? Number(value) : String(value)
  }
  // Present only when set, like the token fields: an unmarked account reads as before.
  if (toBoolean(row.reauth_required)) account.reauth_required = true
  return { ...account, ...tokens }
}

/** The row to insert for an account. Fields without a column are dropped. */
export function accountRow(id: string, account: AdapterAccount): Row {
  const row: Row = {
    id,
    userId: account.userId,
    type: account.type,
    provider: account.provider,
    providerAccountId: account.providerAccountId,
  }
  for (const column of ACCOUNT_TOKEN_COLUMNS) row[column] = account[column] ?? null
  return row
}

/** A session row as the adapter answers it, with the row's `id` (as Auth.js's database adapters return it). */
export function sessionFromRow(row: Row): AdapterSession {
  return {
    ...(row.id != null && { id: String(row.id) }),
    sessionToken: String(row.sessionToken),
    userId: String(row.userId),
    expires: toDate(row.expires),
    // Metadata columns exist after `0003_session_management`; an Auth.js schema has none.
    ...("createdAt" in row && { createdAt: toNullableDate(row.createdAt) }),
    ...("lastSeenAt" in row && { lastSeenAt: toNullableDate(row.lastSeenAt) }),
    ...("userAgent" in row && { userAgent: toNullableString(row.userAgent) }),
    ...("ipAddress" in row && { ipAddress: toNullableString(row.ipAddress) }),
  }
}

/** Metadata fields of a session that have a column, for an INSERT or UPDATE. */
export function sessionMetadataPatch(session: Partial<AdapterSession>): Row {
  const patch: Row = {}
  for (const column of ["createdAt", "lastSeenAt", "userAgent", "ipAddress"] as const) if (session[column] !== undefined) patch[column] = session[column]
  return patch
}

export function verificationTokenFromRow(row: Row): VerificationToken {
  return { identifier: String(row.identifier), token: String(row.token), expires: toDate(row.expires) }
}

export function authenticatorFromRow(row: Row): AdapterAuthenticator {
  return {
    credentialID: String(row.credentialID),
    userId: String(row.userId),
    providerAccountId: String(row.providerAccountId),
    credentialPublicKey: String(row.credentialPublicKey),
    counter: Number(row.counter),
    credentialDeviceType: String(row.credentialDeviceType),
    credentialBackedUp: toBoolean(row.credentialBackedUp),
    transports: toNullableString(row.transports),
    // Absent before 0008_passkey_names ran: no name.
    name: row.name === undefined ? null : toNullableString(row.name),
  }
}

export function authenticatorRow(a: AdapterAuthenticator): Row {
  return {
    credentialID: a.credentialID,
    userId: a.userId,
    providerAccountId: a.providerAccountId,
    credentialPublicKey: a.credentialPublicKey,
    counter: a.counter,
    credentialDeviceType: a.credentialDeviceType,
    credentialBackedUp: a.credentialBackedUp,
    transports: a.transports ?? null,
    // Written only when given, so a schema without the column (before 0008) still takes new passkeys.
    ...(a.name != null && { name: a.name }),
  }
}

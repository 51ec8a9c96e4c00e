/**
 * Records are stored as JSON, where dates become ISO strings. Dates are revived by field
 * name, not by shape, so a string that merely looks like a date stays a string.
 * @module
 */
import type { AdapterSession, AdapterUser, VerificationToken } from "@portcullis/core/adapters"

export const encode = (record: object): string => JSON.stringify(record)

function reviver(dateFields: readonly string[]) {
  return (key: string, value: unknown) =>
    dateFields.includes(key) && typeof value === "string" ? new Date(value) : value
}

const userReviver = reviver(["emailVerified"])
const expiresReviver = reviver(["expires"])
const sessionReviver = reviver(["expires", "createdAt", "lastSeenAt"])

export function decode<T>(json: string | null): T | null {
  return json == null ? null : (JSON.parse(json) as T)
}

export function decodeUser(json: string | null): AdapterUser | null {
  return json == null ? null : (JSON.parse(json, userReviver) as AdapterUser)
}

export function decodeSession(json: string | null): AdapterSession | null {
  return json == null ? null : (JSON.parse(json, sessionReviver) as AdapterSession)
}

export function decodeVerificationToken(json: string | null): VerificationToken | null {
  return json == null ? null : (JSON.parse(json, expiresReviver) as VerificationToken)
}

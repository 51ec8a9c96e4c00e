/**
 * Record builders for the conformance suite. Every id is random so suites for several
 * adapters can share one database or Redis without stepping on each other.
 *
 * @example
 * ```ts
 * const user = await adapter.createUser(makeUser({ name: null }))
 * await adapter.createSession(makeSession(user.id, { expires: daysFromNow(1) }))
 * ```
 * @module
 */
import { randomUUID } from "node:crypto"
import type {
  AdapterAccount,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "@portcullis/core/adapters"

const DAY_MS = 24 * 60 * 60 * 1000

/**
 * A time `days` from now, whole milliseconds. Expiries are in the future because stores
 * with native expiry (Redis) would otherwise drop the record before the test reads it.
 */
export function daysFromNow(days: number): Date {
  return new Date(Date.now() + days * DAY_MS)
}

/** A user with a unique id and email and a verified-at date; `overrides` win. */
export function makeUser(overrides: Partial<AdapterUser> = {}): AdapterUser {
  const id = randomUUID()
  return {
    id,
    name: "Ada Lovelace",
    email: `ada.${id}@example.com`,
    emailVerified: new Date("2024-03-01T10:20:30.456Z"),
    image: "https://example.com/ada.png",
    ...overrides,
  }
}

/** An OIDC account of `userId` with every token field set; `overrides` win. */
export function makeAccount(userId: string, overrides: Partial<AdapterAccount> = {}): AdapterAccount {
  return {
    userId,
    type: "oidc",
    provider: "github",
    providerAccountId: randomUUID(),
    access_token: `at-${randomUUID()}`,
    refresh_token: `rt-${randomUUID()}`,
    id_token: `eyJ.${randomUUID()}.sig`,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    scope: "openid email profile",
    token_type: "bearer",
    session_state: "state-1",
    ...overrides,
  }
}

/** A session of `userId` expiring in 30 days; `overrides` win. */
export function makeSession(userId: string, overrides: Partial<AdapterSession> = {}): AdapterSession {
  return { sessionToken: randomUUID(), userId, expires: daysFromNow(30), ...overrides }
}

/** A verification token for a unique identifier, expiring in a day; `overrides` win. */
export function makeVerificationToken(overrides: Partial<VerificationToken> = {}): VerificationToken {
  return {
    identifier: `ada.${randomUUID()}@example.com`,
    token: randomUUID().replaceAll("-", ""),
    expires: daysFromNow(1),
    ...overrides,
  }
}

/** A passkey of `userId` with a unique base64url credential id; `overrides` win. */
export function makeAuthenticator(userId: string, overrides: Partial<AdapterAuthenticator> = {}): AdapterAuthenticator {
  const credentialID = Buffer.from(randomUUID()).toString("base64url")
  return {
    credentialID,
    userId,
    providerAccountId: credentialID,
    counter: 0,
    credentialBackedUp: true,
    credentialPublicKey: Buffer.from(`pk-${randomUUID()}`).toString("base64"),
    transports: "internal,hybrid",
    credentialDeviceType: "multiDevice",
    ...overrides,
  }
}

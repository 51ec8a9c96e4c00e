/**
 * The Redis key layout. One function per kind of key, so the adapter, the tests and the
 * documentation agree on it.
 * @module
 */

/**
 * Key builders under a prefix. Where a key joins two free-form parts, the first is
 * URI-encoded so it cannot contain the `:` separator and no two pairs share a key.
 *
 * @example
 * ```ts
 * const keys = redisKeys("portcullis:")
 * await redis.pttl(keys.session(sessionToken)) // ms until the session expires
 * ```
 */
export function redisKeys(prefix: string) {
  return {
    /** JSON of a user. */
    user: (id: string) => `${prefix}user:${id}`,
    /** A user's id, by email. */
    userByEmail: (email: string) => `${prefix}user-by-email:${email}`,
    /** Set of the account keys of a user. */
    userAccounts: (userId: string) => `${prefix}user-accounts:${userId}`,
    /** Sorted set of a user's session tokens, scored by expiry (ms), so expired ones can be pruned. */
    userSessions: (userId: string) => `${prefix}user-sessions:${userId}`,
    /** Set of a user's credential ids. */
    userAuthenticators: (userId: string) => `${prefix}user-authenticators:${userId}`,
    /** JSON of an account. */
    account: (provider: string, providerAccountId: string) =>
      `${prefix}account:${encodeURIComponent(provider)}:${providerAccountId}`,
    /** JSON of a session; expires with it. */
    session: (sessionToken: string) => `${prefix}session:${sessionToken}`,
    /** JSON of a verification token; expires with it. */
    verificationToken: (identifier: string, token: string) =>
      `${prefix}verification-token:${encodeURIComponent(identifier)}:${token}`,
    /** Hash of a user's registered JWT sessions (`RedisSessionRegistry`): session id → JSON; expires with the last of them. */
    sessionRegistry: (userId: string) => `${prefix}session-registry:${userId}`,
    /** A lock or shared value of provider token refresh (`acquireLock`, `setShared`); expires on its own. */
    lock: (key: string) => `${prefix}lock:${key}`,
    /** JSON of an authenticator. */
    authenticator: (credentialID: string) => `${prefix}authenticator:${credentialID}`,
    /** A user's password hash (PHC string), for the password provider. */
    userPassword: (userId: string) => `${prefix}user-password:${userId}`,
    /** Hash of a user's two-factor state: `secret` (sealed), `enabled` (`1`/`0`), `lastUsedStep` (empty before the first). */
    twoFactor: (userId: string) => `${prefix}two-factor:${userId}`,
    /** List of the hashes of a user's unused backup codes, in the order they were issued. */
    twoFactorCodes: (userId: string) => `${prefix}two-factor-codes:${userId}`,
    /** JSON of one audit record. */
    auditRecord: (id: string) => `${prefix}audit:${id}`,
    /**
     * The audit trail's indexes: sorted sets whose members are `<time, 15 digits>:<id>` all at
     * score 0, so their lexical order is the trail's (time, id) order — every record, a
     * user's, a type's. Pruned with the records.
     */
    auditAll: () => `${prefix}audit-all`,
    auditByUser: (userId: string) => `${prefix}audit-user:${userId}`,
    auditByType: (type: string) => `${prefix}audit-type:${type}`,
  }
}

export type RedisKeys = ReturnType<typeof redisKeys>

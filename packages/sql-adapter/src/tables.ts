/**
 * Table names and dialects shared by the schema and the adapter.
 * @module
 */

/** The SQL dialects the schema is written for. */
export type SqlDialect = "postgres" | "mysql" | "sqlite"

/** Names of the tables: the five of the adapter, the rate-limit counters' (`sqlRateLimitStore`), the JWT session registry's (`SqlSessionRegistry`), the locks of provider token refresh, two-factor state, password hashes and the audit trail. */
export interface TableNames {
  users: string
  accounts: string
  sessions: string
  verificationTokens: string
  authenticators: string
  rateLimits: string
  /** JWT sessions registered for listing and revocation (`SqlSessionRegistry`). */
  sessionRegistry: string
  /** Short-lived locks and shared values of provider token refreshes (`acquireLock`, `setShared`). */
  locks: string
  /** Each user's two-factor state (`getTwoFactor` and the rest of the 2FA capability). */
  twoFactor: string
  /** Password hashes by user id, for the password provider (`0005_passwords`). */
  passwords: string
  /** The stored audit trail, one row per audit event (`0007_audit_trail`). */
  auditRecords: string
}

/** Default table names: lower-case plurals. */
export const DEFAULT_TABLES: Readonly<TableNames> = Object.freeze({
  users: "users",
  accounts: "accounts",
  sessions: "sessions",
  verificationTokens: "verification_tokens",
  authenticators: "authenticators",
  rateLimits: "rate_limits",
  sessionRegistry: "session_registry",
  locks: "portcullis_locks",
  twoFactor: "two_factor",
  passwords: "user_passwords",
  auditRecords: "audit_records",
})

/** Default name of the table where applied migrations are recorded. */
export const DEFAULT_MIGRATION_TABLE = "portcullis_migrations"

/**
 * Every table's default name with `prefix` in front (`app_users`, `app_rate_limits`, …), for
 * several apps or test runs in one database. `portcullis migrate --table-prefix` uses it.
 *
 * @example
 * ```ts
 * const tables = prefixedTables("billing_")
 * await migrateToLatest(db, { dialect: "postgres", tables, migrationTableName: "billing_migrations" })
 * const adapter = SqlAdapter(db, { tables })
 * ```
 */
export function prefixedTables(prefix: string): TableNames {
  return Object.fromEntries(Object.entries(DEFAULT_TABLES).map(([key, name]) => [key, `${prefix}${name}`])) as unknown as TableNames
}

export function resolveTables(overrides: Partial<TableNames> = {}): TableNames {
  const tables = { ...DEFAULT_TABLES, ...overrides }
  for (const [key, name] of Object.entries(tables)) {
    // Names end up in index and constraint names too; keep them to plain identifiers.
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new Error(`invalid table name for ${key}: ${JSON.stringify(name)}`)
  }
  return tables
}

/**
 * The Xata schema the adapter works on, for any table prefix. `schema.json` at the
 * package root is this schema for the default prefix `nextauth_`.
 * @module
 */

/** A column of a Xata table, in the shape Xata's schema files and API use. */
export interface XataColumn {
  name: string
  type: "string" | "text" | "email" | "datetime" | "int" | "bool" | "link"
  /** For `link` columns: the table linked to. */
  link?: { table: string }
  /** Xata refuses a second record with the same non-null value. */
  unique?: boolean
}

/** A Xata table definition. */
export interface XataTable {
  name: string
  columns: XataColumn[]
}

/** A Xata schema file: what `xata schema upload` and `xata init --schema` read. */
export interface XataSchema {
  tables: XataTable[]
}

/** The default table prefix; it is the one Auth.js's Xata adapter used. */
export const DEFAULT_PREFIX = "nextauth_"

/** Names of the adapter's tables for one prefix. */
export interface XataTableNames {
  users: string
  accounts: string
  sessions: string
  verificationTokens: string
  usersAccounts: string
  usersSessions: string
  /** Only needed for passkeys (WebAuthn). */
  authenticators: string
  /**
   * Only needed for the password provider (`XataAdapter(client, { passwords: true })`):
   * one record per user, whose record id is the user id.
   */
  userPasswords: string
  /**
   * Only needed for two-factor sign-in (`XataAdapter(client, { twoFactor: true })`): one
   * record per user, whose record id is the user id.
   */
  twoFactor: string
}

const TABLE_NAME = /^[a-zA-Z0-9_\-~]+$/

/**
 * The table names for `prefix`, e.g. `nextauth_users`. Throws when the prefix has
 * characters Xata does not allow in a table name.
 *
 * @example
 * ```ts
 * xataTableNames("auth_").sessions // "auth_sessions"
 * ```
 */
export function xataTableNames(prefix: string = DEFAULT_PREFIX): XataTableNames {
  if (prefix !== "" && !TABLE_NAME.test(prefix)) {
    throw new TypeError(`XataAdapter: invalid table prefix ${JSON.stringify(prefix)} (letters, digits, _ - ~ only)`)
  }
  return {
    users: `${prefix}users`,
    accounts: `${prefix}accounts`,
    sessions: `${prefix}sessions`,
    verificationTokens: `${prefix}verificationTokens`,
    usersAccounts: `${prefix}users_accounts`,
    usersSessions: `${prefix}users_sessions`,
    authenticators: `${prefix}authenticators`,
    userPasswords: `${prefix}user_passwords`,
    twoFactor: `${prefix}two_factor`,
  }
}

/**
 * The schema for `prefix`: upload it with the Xata CLI, or merge its tables into your
 * own schema. Long values (tokens, image URLs, public keys) are `text` columns because
 * Xata's `string` holds at most 2048 characters.
 *
 * @example
 * ```ts
 * import { writeFileSync } from "node:fs"
 * import { xataSchema } from "@portcullis/xata-adapter"
 *
 * writeFileSync("schema.json", JSON.stringify(xataSchema("auth_"), null, 2))
 * // then: xata schema upload schema.json
 * ```
 */
export function xataSchema(prefix: string = DEFAULT_PREFIX): XataSchema {
  const t = xataTableNames(prefix)
  const link = (name: string, table: string): XataColumn => ({ name, type: "link", link: { table } })
  return {
    tables: [
      {
        name: t.users,
        columns: [
          { name: "email", type: "email", unique: true },
          { name: "emailVerified", type: "datetime" },
          { name: "name", type: "string" },
          { name: "image", type: "text" },
        ],
      },
      {
        name: t.accounts,
        columns: [
          link("user", t.users),
          { name: "type", type: "string" },
          { name: "provider", type: "string" },
          { name: "providerAccountId", type: "string" },
          { name: "refresh_token", type: "text" },
          { name: "access_token", type: "text" },
          { name: "expires_at", type: "int" },
          { name: "token_type", type: "string" },
          { name: "scope", type: "text" },
          { name: "id_token", type: "text" },
          { name: "session_state", type: "string" },
        ],
      },
      {
        name: t.sessions,
        columns: [
          { name: "sessionToken", type: "string", unique: true },
          { name: "expires", type: "datetime" },
          link("user", t.users),
        ],
      },
      {
        name: t.verificationTokens,
        columns: [
          { name: "identifier", type: "string" },
          { name: "token", type: "string" },
          { name: "expires", type: "datetime" },
        ],
      },
      {
        name: t.usersAccounts,
        columns: [link("user", t.users), link("account", t.accounts)],
      },
      {
        name: t.usersSessions,
        columns: [link("user", t.users), link("session", t.sessions)],
      },
      {
        name: t.authenticators,
        columns: [
          { name: "credentialID", type: "string", unique: true },
          link("user", t.users),
          { name: "providerAccountId", type: "string" },
          { name: "credentialPublicKey", type: "text" },
          { name: "counter", type: "int" },
          { name: "credentialDeviceType", type: "string" },
          { name: "credentialBackedUp", type: "bool" },
          { name: "transports", type: "string" },
        ],
      },
      {
        // Password hashes apart from the users table, so reading a user never reads a hash.
        // The record id is the user id: one hash per user, replaced in place.
        name: t.userPasswords,
        columns: [
          link("user", t.users),
          { name: "hash", type: "text" },
          { name: "updatedAt", type: "datetime" },
        ],
      },
      {
        // A user's TOTP state; the record id is the user id. `backupCodes` is a JSON array
        // of hashes, rewritten whole under the record's version (optimistic concurrency).
        name: t.twoFactor,
        columns: [
          link("user", t.users),
          { name: "secret", type: "text" },
          { name: "enabled", type: "bool" },
          { name: "lastUsedStep", type: "int" },
          { name: "backupCodes", type: "text" },
        ],
      },
    ],
  }
}

/**
 * The Redis key layout of the SSO store.
 *
 * Keys one Lua script changes together share a hash tag, so on Redis Cluster they sit in one
 * slot: a domain's claims and its verified mark (`{domain:<domain>}`), an organization's SCIM
 * users, groups and their name indexes (`{org:<id>}`). Lookups by something else — a
 * connection by id, a SCIM token by hash, an organization's domains or connections, a
 * user's sessions — go through index keys in other slots, written before what they point at
 * and checked against it on read, so a sequence cut off halfway leaves nothing wrong to read.
 * Every free-form part is URI-encoded: it cannot close a hash tag early (`}`) or run into
 * the next part (`:`).
 * @module
 */

const e = encodeURIComponent

/**
 * Key builders under `prefix`.
 *
 * @example
 * ```ts
 * const keys = ssoRedisKeys("portcullis:sso:")
 * keys.domain("acme.com").verified // "portcullis:sso:{domain:acme.com}:verified"
 * ```
 */
export function ssoRedisKeys(prefix: string) {
  return {
    /** Hash: organizationId, json (the connection). */
    connection: (id: string) => `${prefix}connection:${e(id)}`,
    /** Set of an organization's connection ids (checked against the connections on read). */
    organizationConnections: (organizationId: string) => `${prefix}org-connections:${e(organizationId)}`,
    /** Set of a connection's SCIM token ids. */
    connectionTokens: (connectionId: string) => `${prefix}connection-tokens:${e(connectionId)}`,
    /** Hash of one SCIM token: its fields, dates as ms, `lastUsedAt` empty until used. */
    token: (id: string) => `${prefix}scim-token:${e(id)}`,
    /** The id of the token with this hash. */
    tokenByHash: (hash: string) => `${prefix}scim-token-hash:${e(hash)}`,
    domain(domain: string) {
      const base = `${prefix}{domain:${e(domain)}}`
      return {
        /** Hash of one organization's claim: token, verifiedAt (ms or empty), requireSso (0/1), connectionId (or empty), createdAt (ms). */
        claim: (organizationId: string) => `${base}:claim:${e(organizationId)}`,
        /** The id of the organization that verified the domain: one at most, set by a script that checks first. */
        verified: `${base}:verified`,
      }
    },
    /** Set of the domains an organization claimed (checked against the claims on read). */
    organizationDomains: (organizationId: string) => `${prefix}org-domains:${e(organizationId)}`,
    organization(organizationId: string) {
      const base = `${prefix}{org:${e(organizationId)}}`
      return {
        /** What a SCIM user's key starts with; the encoded id follows. */
        userPrefix: `${base}:scim-user:`,
        /** Hash of one SCIM user: json (without version), version, nameKey (the lowercased userName). */
        user: (id: string) => `${base}:scim-user:${e(id)}`,
        /** Set of the organization's SCIM user ids. */
        users: `${base}:scim-users`,
        /** Hash: lowercased userName → user id. The index that keeps a userName single. */
        userNames: `${base}:scim-user-names`,
        /** What a SCIM group's key starts with; the encoded id follows. */
        groupPrefix: `${base}:scim-group:`,
        /** Hash of one SCIM group: json (without members and version), members (JSON array), version, name. */
        group: (id: string) => `${base}:scim-group:${e(id)}`,
        /** Set of the organization's SCIM group ids. */
        groups: `${base}:scim-groups`,
        /** Hash: displayName → group id. */
        groupNames: `${base}:scim-group-names`,
      }
    },
    /** A single-use record or a kept value; expires with it. */
    once: (namespace: string, id: string) => `${prefix}once:${e(namespace)}:${e(id)}`,
    /** Hash of one SSO session: userId, organizationId, ended (0/1); expires with the session. */
    session: (key: string) => `${prefix}session:${e(key)}`,
    /** Set of the session keys of a user in an organization; lives as long as the longest of them. */
    userSessions: (userId: string, organizationId: string) => `${prefix}user-sessions:${e(userId)}:${e(organizationId)}`,
  }
}

export type SsoRedisKeys = ReturnType<typeof ssoRedisKeys>

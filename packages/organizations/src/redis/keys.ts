/**
 * The Redis key layout of the organization store.
 *
 * An organization's own keys (its record, members, owners, invitations) share the hash tag
 * `{org:<id>}`, so on Redis Cluster they sit in one slot and one Lua script can change them
 * together. Three indexes cannot share that slot, since they are looked up by something
 * else: the slug claim (by slug), a user's organizations (by user) and an invitation's
 * organization (by invitation id). Those are written in an order that leaves nothing
 * wrong to read if a step is cut off (see `store.ts`).
 * @module
 */

/**
 * Key builders under `prefix`. A free-form part inside a hash tag is URI-encoded, so it
 * cannot close the tag early (`}`) and no two organizations share a key.
 *
 * @example
 * ```ts
 * const keys = organizationRedisKeys("portcullis:")
 * keys.organization(id).info // "portcullis:{org:<id>}:info"
 * ```
 */
export function organizationRedisKeys(prefix: string) {
  return {
    organization(id: string) {
      const base = `${prefix}{org:${encodeURIComponent(id)}}`
      return {
        /** Hash: id, name, slug, metadata (JSON), createdAt (ms). */
        info: `${base}:info`,
        /** Hash: user id → role. */
        roles: `${base}:roles`,
        /** Hash: user id → when the membership began (ms). */
        since: `${base}:since`,
        /** Set of the user ids whose role is `owner`: counted by the last-owner guard. */
        owners: `${base}:owners`,
        /** Set of the organization's invitation ids. */
        invitations: `${base}:invitations`,
        /** What an invitation key starts with; the id follows, after the hash tag, as is. */
        invitationPrefix: `${base}:invitation:`,
        /** Hash of one invitation: its fields, dates as ms, `acceptedBy` empty until accepted. */
        invitation: (invitationId: string) => `${base}:invitation:${invitationId}`,
      }
    },
    /** JSON `{ id, at }`: the organization that claimed the slug, and when (ms). */
    slug: (slug: string) => `${prefix}slug:${slug}`,
    /** Set of the ids of the organizations a user may belong to (checked against the members on read). */
    userOrganizations: (userId: string) => `${prefix}user-orgs:${userId}`,
    /** The id of an invitation's organization; written before the invitation, never changed. */
    invitationOrganization: (invitationId: string) => `${prefix}invitation-org:${invitationId}`,
    /** The active organization's id of a session; expires with the mark. */
    active: (sessionKey: string) => `${prefix}active:${sessionKey}`,
  }
}

export type OrganizationRedisKeys = ReturnType<typeof organizationRedisKeys>

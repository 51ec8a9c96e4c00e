/**
 * Where bans live: one record per banned user, read at every sign-in (the sign-in gate), so
 * every instance sharing the store refuses the user. An expired ban lapses by itself: `get`
 * answers only a ban that is still in force.
 * @module
 */

/** A user's ban. */
export interface Ban {
  userId: string
  /** Why, as the admin wrote it (shown in the console, kept in the audit trail); at most 500 characters. */
  reason: string
  /** The admin who banned. */
  bannedBy: string
  bannedAt: Date
  /** When the ban lapses by itself; `null` for a ban until lifted. */
  expires: Date | null
}

/**
 * A ban store: `memoryBanStore()` (`@portcullis/admin/memory`), or your own over any shared
 * store. Each method is one atomic step of the store; `get` never answers an expired ban.
 */
export interface BanStore {
  /** Stores (or replaces) the user's ban. */
  ban(ban: Ban): Promise<void>
  /** Lifts the user's ban; whether there was one in force. */
  unban(userId: string): Promise<boolean>
  /** The user's ban in force at `now`, or `null`. */
  get(userId: string, now?: Date): Promise<Ban | null>
  /** The bans in force among `userIds` (for a page of the users list), by user id. */
  many(userIds: readonly string[], now?: Date): Promise<Map<string, Ban>>
}

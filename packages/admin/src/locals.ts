/**
 * The admin extension's state for one configuration (what `setup` builds): the ban store,
 * wrapped by core, and who counts as an admin.
 * @module
 */
import type { BanStore } from "./store/types.js"
import type { ImpersonationStore } from "./store/impersonations.js"

/** A user as the admin check sees them: the adapter's record, with the app's own fields (a role). */
export interface AdminUserRecord {
  id: string
  email?: string | null
  name?: string | null
  emailVerified?: Date | null
  [field: string]: unknown
}

export interface AdminLocals {
  store: BanStore
  /** Whether `user` is an admin: the `isAdmin` option, or a role of `roles` in `roleField`. */
  isAdmin(user: AdminUserRecord): Promise<boolean>
  getUser(id: string): Promise<AdminUserRecord | null>
  /** The user's organizations (the `organizationsOf` option), when the app gave a source. */
  organizationsOf?: (userId: string) => Promise<ReadonlyArray<{ id: string; name: string; role: string }>>
  /** Impersonation, when configured: its store (wrapped by core), its limit in seconds and where it lands. */
  impersonation?: { store: ImpersonationStore; maxAge: number; landing: string }
}

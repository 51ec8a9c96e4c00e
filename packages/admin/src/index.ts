/**
 * `@portcullis/admin`: an admin console for Portcullis — users (search, filters, pages), a
 * user's sessions and audit events, bans that every way of signing in refuses, recovery
 * (two-factor reset, sessions ended) and sign-in charts — built on the public extension API
 * (docs/admin.md). Off unless configured; only admins (`isAdmin` or `roles`) get in.
 *
 * @example
 * ```ts
 * import { admin } from "@portcullis/admin"
 * import { memoryBanStore } from "@portcullis/admin/memory"
 *
 * const console = admin({
 *   store: memoryBanStore(),
 *   isAdmin: (user) => user.email === "ada@example.com",
 * })
 * export const config = { adapter, providers, extensions: [console] }
 * // Pages at /auth/admin; on the server: await extensions.admin.ban(userId, { reason: "spam", duration: 86400 })
 * ```
 * @module
 */
import { defineExtension, InvalidConfig, type Extension } from "@portcullis/core/extension"
import type { AdminLocals, AdminUserRecord } from "./locals.js"
import { messages } from "./messages.js"
import { adminServer, type AdminServer } from "./operations.js"
import { adminRoutes } from "./routes.js"
import type { BanStore } from "./store/types.js"
import type { ImpersonationStore } from "./store/impersonations.js"
import { impersonationBannerOf, impersonationFields, impersonationValid } from "./impersonation.js"

export type { AdminServer, BanInput, ListedUser, UserDetails, UserListInput, UserListPage } from "./operations.js"
export type { Ban, BanStore } from "./store/types.js"
export type { Impersonation, ImpersonationStore } from "./store/impersonations.js"
export type { AdminUserRecord } from "./locals.js"
export type { SignInStats, DayCounts } from "./stats.js"
export { messages } from "./messages.js"

/** The options of {@link admin}: a ban store, and who is an admin (`isAdmin`, `roles`, or both — either suffices). */
export interface AdminOptions {
  /** Where bans live: `memoryBanStore()` (`@portcullis/admin/memory`) or your own shared store (see `BanStore`). */
  store: BanStore
  /** Whether `user` (the adapter's record, read fresh at every request) is an admin. */
  isAdmin?: (user: AdminUserRecord) => boolean | Promise<boolean>
  /** Values of the user's `roleField` that make them an admin (`["admin"]`). */
  roles?: readonly string[]
  /** The user field holding the role. Default `"role"`. */
  roleField?: string
  /**
   * A user's organizations for their page, from the app's own source — with organizations
   * configured, its store's public `listOrganizations`:
   * `(userId) => store.listOrganizations(userId).then((all) => all.map(({ organization, role }) => ({ id: organization.id, name: organization.name, role })))`.
   * Without it the page has no organizations section.
   */
  organizationsOf?: (userId: string) => Promise<ReadonlyArray<{ id: string; name: string; role: string }>>
  /**
   * Impersonation (docs/admin.md#impersonation): off without it. `store` keeps one record per
   * impersonated session — shared (`redisImpersonationStore`, `sqlImpersonationStore`) when more than one instance
   * serves the app; `maxAge` is the hard limit in seconds (default 1800, 60 to 86,400);
   * `landing` is where an admin lands once impersonating (default `"/"`, a path of the app).
   */
  impersonation?: { store: ImpersonationStore; maxAge?: number; landing?: string }
}

/** The admin extension. */
export type AdminExtension = Extension<"admin", AdminServer, AdminLocals>

/**
 * The admin console: put it in the configuration's `extensions`. Pages at
 * `<basePath>/admin`, JSON under `<basePath>/admin/api`, server functions as
 * `extensions.admin` in every integration, and a sign-in gate that refuses banned users
 * (`AccountSuspended`) wherever they sign in.
 *
 * @throws `InvalidConfig` without a store, or without `isAdmin` or `roles`.
 * @example
 * ```ts
 * const console = admin({ store: memoryBanStore(), roles: ["admin"] }) // users whose `role` is "admin"
 * ```
 */
export function admin(options: AdminOptions): AdminExtension {
  if (!options || typeof options !== "object") throw new InvalidConfig("admin: options are required ({ store, isAdmin } or { store, roles })")
  const { store, isAdmin, roles, roleField = "role", organizationsOf } = options
  if (!store || typeof store !== "object" || typeof store.get !== "function" || typeof store.ban !== "function") throw new InvalidConfig("admin: options.store is required (memoryBanStore() or a BanStore of your own)")
  if (isAdmin !== undefined && typeof isAdmin !== "function") throw new InvalidConfig("admin: isAdmin must be a function of the user")
  if (roles !== undefined && (!Array.isArray(roles) || roles.length === 0 || !roles.every((r) => typeof r === "string" && r))) throw new InvalidConfig("admin: roles must be a non-empty list of role names")
  if (!isAdmin && !roles) throw new InvalidConfig("admin: say who is an admin — an isAdmin(user) callback, a roles list, or both; without either nobody could use the console")
  if (typeof roleField !== "string" || !roleField) throw new InvalidConfig("admin: roleField must be a field name")
  if (organizationsOf !== undefined && typeof organizationsOf !== "function") throw new InvalidConfig("admin: organizationsOf must be a function of a user id")
  const impersonation = checkImpersonation(options.impersonation)
  const roleSet = new Set(roles ?? [])
  return defineExtension({
    id: "admin",
    setup(host): AdminLocals {
      return {
        store: host.wrapStore("ban", store),
        getUser: async (id) => (await host.getUser(id)) as AdminUserRecord | null,
        // Wrapped as a store: bounded, and a failure an outage (503), never a 500.
        ...(organizationsOf && { organizationsOf: host.wrapStore("admin organizations", { list: organizationsOf }).list }),
        ...(impersonation && { impersonation: { ...impersonation, store: host.wrapStore("impersonation", impersonation.store) } }),
        async isAdmin(user) {
          if (roleSet.size && typeof user[roleField] === "string" && roleSet.has(user[roleField] as string)) return true
          return isAdmin ? (await isAdmin(user)) === true : false
        },
      }
    },
    messages,
    routes: adminRoutes,
    // The banner's data and the hard end of an impersonated session, on every check of it.
    ...(impersonation && { session: { fields: impersonationFields, valid: impersonationValid }, banner: impersonationBannerOf }),
    server: adminServer,
    // The ban, asked where every sign-in becomes a session (credentials, password, OAuth,
    // email link, passkey); a store that fails refuses the sign-in (503), never lets it through.
    // A ban is of a user: asked before a sign-in creates its user (no `userId`), nobody is
    // banned yet — the same sign-in is asked again with the new user's id.
    async signInGate({ userId, locals }) {
      if (userId === undefined) return undefined
      const ban = await locals.store.get(userId)
      return ban ? { refuse: `banned${ban.expires ? ` until ${ban.expires.toISOString()}` : ""}: ${ban.reason}` } : undefined
    },
  })
}

const IMPERSONATION_DEFAULT = 30 * 60
const IMPERSONATION_MAX = 24 * 3600

function checkImpersonation(option: AdminOptions["impersonation"]): { store: ImpersonationStore; maxAge: number; landing: string } | undefined {
  if (option === undefined) return undefined
  if (!option || typeof option !== "object" || !option.store || typeof option.store.get !== "function" || typeof option.store.put !== "function") throw new InvalidConfig("admin: impersonation.store is required (memoryImpersonationStore() or redisImpersonationStore(client))")
  const { maxAge = IMPERSONATION_DEFAULT, landing = "/" } = option
  if (!Number.isInteger(maxAge) || maxAge < 60 || maxAge > IMPERSONATION_MAX) throw new InvalidConfig("admin: impersonation.maxAge is whole seconds from 60 to 86400")
  // A path of the app only: an absolute URL here would make the console an open redirect.
  if (typeof landing !== "string" || !landing.startsWith("/") || landing.startsWith("//") || landing.includes("\\")) throw new InvalidConfig("admin: impersonation.landing is a path of the app, such as \"/\" or \"/account\"")
  return { store: option.store, maxAge, landing }
}

/**
 * `@portcullis/organizations`: organizations, members, roles and invitations for
 * Portcullis, built on the public extension API (docs/organizations.md).
 *
 * @example
 * ```ts
 * import { organizations } from "@portcullis/organizations"
 * import { memoryOrganizationStore } from "@portcullis/organizations/memory"
 *
 * export const orgs = organizations({
 *   store: memoryOrganizationStore(),
 *   roles: { billing: ["invoice:pay", "invoice:read"], admin: ["project:create"] },
 * })
 * const config = { providers, extensions: [orgs] }
 * // On the server, through an integration's extensions():
 * //   await extensions.organizations.require("project:create")
 * ```
 * @module
 */
import { defineExtension, InvalidConfig, type Extension, type Json } from "@portcullis/core/extension"
import { activeOrganization, organizationOperations, type OrganizationsLocals, type OrganizationSummary } from "./operations.js"
import { messages } from "./messages.js"
import { resolveRoles, type PermissionOf, type RoleDefinitions, type RoleOf } from "./roles.js"
import { organizationRoutes } from "./routes/organizations.js"
import { memberRoutes } from "./routes/members.js"
import { invitationRoutes } from "./routes/invitations.js"
import type { OrganizationsServer } from "./server.js"
import type { OrganizationStore } from "./store/types.js"

export type { OrganizationsServer, PermissionScope } from "./server.js"
export type {
  CreateOrganizationInput,
  InvitationDetails,
  MemberDetails,
  OrganizationDetails,
  OrganizationSummary,
  OrganizationsLocals,
  UpdateOrganizationInput,
} from "./operations.js"
export { BUILT_IN_PERMISSIONS, resolveRoles } from "./roles.js"
export type { BuiltInPermission, BuiltInRole, PermissionOf, RoleDefinitions, RoleOf, RoleTable } from "./roles.js"
export type { AcceptOutcome, AddMemberOutcome, Invitation, InvitationStatus, Membership, Organization, OrganizationStore, OwnerGuarded } from "./store/types.js"
export { messages } from "./messages.js"

/** Default lifetime of an invitation: 7 days, in seconds. */
export const DEFAULT_INVITATION_MAX_AGE = 7 * 24 * 3600

/** Default limits: generous for a team, small enough that one account can't flood a store. */
export const DEFAULT_LIMITS = Object.freeze({ organizationsPerUser: 50, membersPerOrganization: 1000 })

/** The options of {@link organizations}. */
export interface OrganizationsOptions<R extends RoleDefinitions = RoleDefinitions> {
  /** Where organizations live: `memoryOrganizationStore()`, `sqlOrganizationStore(db)`, `redisOrganizationStore(redis)`. */
  store: OrganizationStore
  /**
   * The app's roles as named permission sets (`{ billing: ["invoice:pay"] }`); under
   * `admin` or `member`, permissions added to those built-in roles. `owner` holds every
   * permission. Permission names are inferred, so `can("invoice:pay")` is checked by the
   * compiler.
   */
  roles?: R
  invitations?: {
    /** Seconds an invitation link stays valid. Default 7 days. */
    maxAge?: number
    /** Whether the accept page offers to create an account (core's password sign-up page). Default `true`. */
    signUp?: boolean
    /** Where the accept page lands once accepted: a path of the site (`"/team"`). Default `"/"`. */
    afterAccept?: string
  }
  /** Beyond these, creating or joining is refused (`organization-limit`, `member-limit`, 409). */
  limits?: { organizationsPerUser?: number; membersPerOrganization?: number }
}

/** What organizations adds to the session answer, as `session.organizations`. */
export interface OrganizationsSessionField {
  userId: string
  /** The session's active organization with the user's role, or `null` (none, or no longer a member). */
  active: OrganizationSummary | null
}

/** The organizations extension, typed with the app's roles. */
export type OrganizationsExtension<R extends RoleDefinitions = RoleDefinitions> = Extension<"organizations", OrganizationsServer<PermissionOf<R>, RoleOf<R>>, OrganizationsLocals>

/** A path of the site (never another origin: the accept form must not become an open redirect). */
function sitePath(value: unknown): string {
  if (value === undefined) return "/"
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.includes("\\")) throw new InvalidConfig("organizations: invitations.afterAccept must be a path of the site, such as \"/team\"")
  return value
}

function positiveInteger(value: unknown, fallback: number, name: string): number {
  if (value === undefined) return fallback
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1) throw new InvalidConfig(`organizations: ${name} must be a whole number of at least 1`)
  return value
}

/**
 * The organizations extension: put it in the configuration's `extensions`. It serves its
 * routes under `<basePath>/organizations`, adds `session.organizations`, and offers its
 * server functions as `extensions.organizations` in every integration.
 *
 * @example
 * ```ts
 * import { organizations } from "@portcullis/organizations"
 * import { sqlOrganizationStore } from "@portcullis/organizations/sql"
 *
 * const orgs = organizations({
 *   store: sqlOrganizationStore(db),
 *   roles: { billing: ["invoice:pay", "invoice:read"], admin: ["project:create"] },
 *   invitations: { maxAge: 3 * 24 * 3600 },
 * })
 * export const config = { providers, adapter, extensions: [orgs] }
 * ```
 */
export function organizations<const R extends RoleDefinitions = {}>(options: OrganizationsOptions<R>): OrganizationsExtension<R> {
  if (!options || typeof options !== "object" || !options.store || typeof options.store !== "object") {
    throw new InvalidConfig("organizations: options.store is required (memoryOrganizationStore(), sqlOrganizationStore(db) or redisOrganizationStore(redis))")
  }
  return defineExtension({
    id: "organizations",
    setup(host): OrganizationsLocals {
      return {
        store: host.wrapStore("organizations", options.store),
        roles: resolveRoles(options.roles),
        invitationMaxAge: positiveInteger(options.invitations?.maxAge, DEFAULT_INVITATION_MAX_AGE, "invitations.maxAge"),
        signUp: options.invitations?.signUp ?? true,
        afterAccept: sitePath(options.invitations?.afterAccept),
        limits: {
          organizationsPerUser: positiveInteger(options.limits?.organizationsPerUser, DEFAULT_LIMITS.organizationsPerUser, "limits.organizationsPerUser"),
          membersPerOrganization: positiveInteger(options.limits?.membersPerOrganization, DEFAULT_LIMITS.membersPerOrganization, "limits.membersPerOrganization"),
        },
        getUser: host.getUser,
        getUserByEmail: host.getUserByEmail,
      }
    },
    messages,
    routes: [...organizationRoutes, ...invitationRoutes, ...memberRoutes],
    session: {
      async fields({ session, locals }) {
        const field: OrganizationsSessionField = { userId: session.userId, active: await activeOrganization(locals.store, session) }
        return field as unknown as Json
      },
    },
    server: (call) => organizationOperations(call, call.locals) as OrganizationsServer<PermissionOf<R>, RoleOf<R>>,
  })
}

/**
 * Roles and permissions: the built-in roles (`owner`, `admin`, `member`), the app's roles as
 * named permission sets, and the two rules every change of membership obeys — a role is
 * granted only by someone whose own permissions cover it, and a member is changed or
 * removed only by someone whose permissions cover the target's.
 * @module
 */
import { InvalidConfig } from "@portcullis/core/extension"

/** The permissions organizations itself checks. */
export const BUILT_IN_PERMISSIONS = [
  "organization:read",
  "organization:update",
  "organization:delete",
  "member:invite",
  "member:remove",
  "member:role",
] as const

/** A permission organizations itself checks. */
export type BuiltInPermission = (typeof BUILT_IN_PERMISSIONS)[number]

/** The roles every organization has. */
export type BuiltInRole = "owner" | "admin" | "member"

/** The app's roles: each a name and the permissions it grants (`{ billing: ["invoice:pay"] }`). */
export type RoleDefinitions = Readonly<Record<string, readonly string[]>>

/** Every permission of a configuration: the built-in ones and those the app's roles name. */
export type PermissionOf<R extends RoleDefinitions> = BuiltInPermission | R[keyof R][number]

/** Every role of a configuration: the built-in ones and the app's. */
export type RoleOf<R extends RoleDefinitions> = BuiltInRole | (keyof R & string)

const ADMIN: readonly BuiltInPermission[] = ["organization:read", "organization:update", "member:invite", "member:remove", "member:role"]
const MEMBER: readonly BuiltInPermission[] = ["organization:read"]

const ROLE_NAME = /^[a-z][a-z0-9_-]{0,31}$/
const PERMISSION_NAME = /^[a-z][a-z0-9_-]*(?::[a-z0-9_*-]+)*$/

/** The roles of one configuration, resolved: each role's full permission set. */
export interface RoleTable {
  /** Every role name, built-ins first. */
  readonly names: readonly string[]
  /** The permissions of `role`, or `undefined` for a role this configuration does not know. */
  permissions(role: string): ReadonlySet<string> | undefined
  /** Whether `role` holds `permission`. An unknown role holds nothing. */
  has(role: string, permission: string): boolean
  /**
   * Whether a member with role `granter` may hand out `role` (by invitation or a role
   * change): only owners grant `owner`; anyone else only a role whose permissions are all
   * their own.
   */
  mayGrant(granter: string, role: string): boolean
  /**
   * Whether a member with role `actor` may change or remove a member whose role is
   * `target`: an owner only by an owner; anyone else only when the target's permissions
   * are all the actor's (an admin can't remove an owner).
   */
  mayManage(actor: string, target: string): boolean
}

/**
 * Resolves the app's role definitions. Every role reads its organization
 * (`organization:read`); `owner` holds every permission, including each app permission;
 * `admin` and `member` keep their built-in permissions plus those the app adds under their
 * names.
 *
 * @throws InvalidConfig for a role or permission name that is not lowercase `a-z0-9_-`
 * (permissions: segments joined by `:`).
 */
export function resolveRoles(definitions: RoleDefinitions = {}): RoleTable {
  if (typeof definitions !== "object" || definitions === null || Array.isArray(definitions)) {
    throw new InvalidConfig("organizations: roles must be an object of role name → permission names")
  }
  const sets = new Map<string, Set<string>>([
    ["owner", new Set(BUILT_IN_PERMISSIONS)],
    ["admin", new Set(ADMIN)],
    ["member", new Set(MEMBER)],
  ])
  for (const [role, permissions] of Object.entries(definitions)) {
    if (!ROLE_NAME.test(role)) throw new InvalidConfig(`organizations: role ${JSON.stringify(role)} must be lowercase a-z, 0-9, _ and -, starting with a letter, at most 32 characters`)
    if (!Array.isArray(permissions)) throw new InvalidConfig(`organizations: role "${role}" must list its permissions as an array`)
    for (const permission of permissions) {
      if (typeof permission !== "string" || !PERMISSION_NAME.test(permission) || permission.length > 100) {
        throw new InvalidConfig(`organizations: permission ${JSON.stringify(permission)} of role "${role}" must be lowercase segments joined by ":" (project:create)`)
      }
    }
    const set = sets.get(role) ?? new Set<string>(MEMBER)
    for (const permission of permissions) set.add(permission)
    sets.set(role, set)
  }
  // The owner holds everything any role holds: nobody can ever be above an owner.
  const owner = sets.get("owner")!
  for (const set of sets.values()) for (const permission of set) owner.add(permission)

  const covers = (outer: ReadonlySet<string>, inner: ReadonlySet<string>) => [...inner].every((p) => outer.has(p))
  const names = Object.freeze([...sets.keys()])
  return {
    names,
    permissions: (role) => sets.get(role),
    has: (role, permission) => sets.get(role)?.has(permission) ?? false,
    mayGrant(granter, role) {
      const mine = sets.get(granter)
      const wanted = sets.get(role)
      if (!mine || !wanted) return false
      if (role === "owner") return granter === "owner"
      return covers(mine, wanted)
    },
    mayManage(actor, target) {
      const mine = sets.get(actor)
      const theirs = sets.get(target)
      if (!mine) return false
      if (target === "owner") return actor === "owner"
      // A role the configuration no longer defines holds nothing: anyone allowed to manage may.
      return theirs === undefined || covers(mine, theirs)
    },
  }
}

/**
 * A provisioned member's role follows their SCIM groups: the connection's role rules
 * (`roleFor`, claim `groups`) read the display names of the groups they are in.
 * @module
 */
import type { ScimGroup } from "../store/types.js"
import type { ScimContext } from "./context.js"

/** The display names of the groups `userId` is in. */
export function groupNamesOf(groups: ScimGroup[], userId: string): string[] {
  return groups.filter((g) => g.members.includes(userId)).map((g) => g.displayName)
}

/** Sets each active provisioned user's role from the groups they are in now; inactive users are not members to set. */
export async function recomputeRoles(ctx: ScimContext, userIds: Iterable<string>): Promise<void> {
  const { dir } = ctx
  const ids = [...new Set(userIds)]
  if (ids.length === 0) return
  const groups = await dir.store.listScimGroups(dir.organizationId)
  for (const id of ids) {
    const user = await dir.store.getScimUser(dir.organizationId, id)
    if (!user?.active) continue
    await dir.setRole(id, dir.roleFor(groupNamesOf(groups, id)))
  }
}

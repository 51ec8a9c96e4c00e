/**
 * The routes of an organization's members: list them, change a role, remove one, leave.
 * @module
 */
import type { ExtensionRoute } from "@portcullis/core/extension"
import { organizationOperations, type OrganizationsLocals } from "../operations.js"

const ops = (req: Parameters<ExtensionRoute<OrganizationsLocals>["handler"]>[0]) => organizationOperations(req, req.locals)

export const memberRoutes: ExtensionRoute<OrganizationsLocals>[] = [
  { method: "GET", path: ":id/members", handler: async (req) => ({ json: { members: await ops(req).members(req.params.id!) } }) },
  {
    method: "POST",
    path: ":id/members/:userId/role",
    handler: async (req) => ({ json: await ops(req).setRole(req.params.id!, req.params.userId!, req.body.role as string) }),
  },
  { method: "POST", path: ":id/members/:userId/remove", handler: async (req) => ({ json: await ops(req).removeMember(req.params.id!, req.params.userId!) }) },
  { method: "POST", path: ":id/leave", handler: async (req) => ({ json: await ops(req).leave(req.params.id!) }) },
]

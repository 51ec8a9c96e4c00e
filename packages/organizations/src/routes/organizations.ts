/**
 * The routes of organizations themselves: list and create, read, change and delete one,
 * and switch the session's active organization.
 * @module
 */
import { ExtensionRequestError, type ExtensionRoute } from "@portcullis/core/extension"
import { organizationOperations, type OrganizationsLocals } from "../operations.js"

const ops = (req: Parameters<ExtensionRoute<OrganizationsLocals>["handler"]>[0]) => organizationOperations(req, req.locals)

export const organizationRoutes: ExtensionRoute<OrganizationsLocals>[] = [
  { method: "GET", path: "", handler: async (req) => ({ json: await ops(req).list() }) },
  {
    method: "POST",
    path: "",
    rateLimit: { max: 10, window: 3600 },
    handler: async (req) => ({ json: { organization: await ops(req).create(req.body as never) }, status: 201 }),
  },
  // Before ":id", which would otherwise match "active".
  {
    method: "POST",
    path: "active",
    async handler(req) {
      const id = req.body.organizationId
      // Absent, null or "" (a form's empty choice) clears it; anything but a string id is a mistake, not a clear.
      if (id !== undefined && id !== null && typeof id !== "string") throw new ExtensionRequestError("invalid-organization", "organizationId must be an id or null", 422)
      return { json: await ops(req).setActive(id ? id : null) }
    },
  },
  { method: "GET", path: ":id", handler: async (req) => ({ json: { organization: await ops(req).get(req.params.id!) } }) },
  { method: "POST", path: ":id", handler: async (req) => ({ json: { organization: await ops(req).update(req.params.id!, req.body as never) } }) },
  { method: "POST", path: ":id/delete", stepUp: true, handler: async (req) => ({ json: await ops(req).remove(req.params.id!) }) },
]

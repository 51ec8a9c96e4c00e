/**
 * SCIM 2.0 endpoints per connection (`/auth/sso/scim/<connection id>/v2/…`), for the
 * organization's IdP to provision and deprovision its people. A SCIM client is no browser:
 * the routes take requests from anywhere and authenticate the caller by the connection's
 * bearer token (kept hashed). Deprovisioning ends the person's membership and their sessions
 * in the organization at once — every session when they belong to no other.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse, ExtensionRoute } from "@portcullis/core/extension"
import { emailDomain } from "../domains.js"
import type { SsoLocals } from "../locals.js"
import { roleFor } from "../roles.js"
import { authenticateScim, scimRequest, ScimError, type ScimDirectory, type ScimResponse } from "../scim/index.js"
import type { Connection } from "../store/types.js"

/** SCIM clients sync in bursts (a first import of thousands of people): per address, generous. */
const SCIM_LIMIT = { max: 600, window: 60 }

/** The organization's directory as SCIM sees it, for one request. */
export function directoryFor(req: ExtensionRequest<SsoLocals>, connection: Connection): ScimDirectory {
  const { store, organizations } = req.locals
  const organizationId = connection.organizationId
  return {
    organizationId,
    store,
    findUserByEmail: (email) => req.locals.getUserByEmail(email).then((u) => (u ? { id: u.id, email: u.email ?? null } : null)),
    createUser: ({ email, name }) => req.admin.createUser({ email, name, emailVerified: true }),
    async emailAllowed(email) {
      const domain = emailDomain(email)
      const claim = domain ? await store.getDomain(domain) : null
      return !!claim?.verifiedAt && claim.organizationId === organizationId
    },
    async addMember(userId, role) {
      await organizations.addMember({ organizationId, userId, role, createdAt: new Date() })
    },
    async setRole(userId, role) {
      const current = await organizations.getMembership(organizationId, userId)
      // An owner is made by people in the app; the IdP's groups never demote one.
      if (current && current.role !== "owner" && current.role !== role) await organizations.setRole(organizationId, userId, role, current.role)
    },
    async removeMember(userId) {
      await organizations.removeMember(organizationId, userId)
    },
    async endSessions(userId) {
      const ended = await store.endSessions(userId, organizationId)
      const elsewhere = await organizations.listOrganizations(userId)
      // A member of no organization any more: every session ends, wherever it was started.
      const revocable = req.admin.capabilities().sessions
      const revoked = elsewhere.length === 0 && revocable ? await req.admin.revokeSessions(userId) : 0
      // JWT sessions without a registry cannot be ended: the person's non-SSO sessions outlive the deprovisioning. Say so.
      if (elsewhere.length === 0 && !revocable) req.locals.logger.warn("sso-sessions-not-revocable", "a deprovisioned user's other sessions stay valid until they expire: configure session.registry (JWT) or database sessions")
      await req.audit({ type: "sessionsEnded", outcome: "success", userId, details: { organizationId, connectionId: connection.id, sso: ended, all: revoked } })
    },
    roleFor: (groups) => roleFor(connection.roleRules, connection.defaultRole, { groups }),
    async audit(type, details) {
      await req.audit({ type: `scim.${type}`, outcome: "success", details: { ...details, organizationId, connectionId: connection.id } })
    },
    reportError: (error) => req.locals.logger.warn("scim-unavailable", error instanceof Error ? error.message : String(error)),
  }
}

function answer(response: ScimResponse): ExtensionResponse {
  const headers = { ...response.headers }
  delete headers["Content-Type"]
  if (response.status === 204 || response.body === undefined) return { empty: true, status: response.status, headers }
  return { json: response.body, status: response.status, contentType: "application/scim+json", headers }
}

async function scim(req: ExtensionRequest<SsoLocals>): Promise<ExtensionResponse> {
  const connectionId = req.params.connection!
  let token
  try {
    token = await authenticateScim(req.locals.store, req.headers.get("authorization"))
  } catch (error) {
    if (error instanceof ScimError) return answer(error.toResponse())
    throw error
  }
  // A token opens its own connection's endpoint only: another organization's is as unknown as a forged one.
  const connection = token.connectionId === connectionId ? await req.locals.store.getConnection(connectionId) : null
  if (!connection || connection.organizationId !== token.organizationId) return answer(new ScimError(401, "The bearer token is not valid for this endpoint", undefined, { "WWW-Authenticate": 'Bearer error="invalid_token"' }).toResponse())
  const path = [req.params.resource!, ...(req.params.id !== undefined ? [req.params.id] : [])]
  const ifMatch = req.headers.get("if-match") ?? undefined
  const response = await scimRequest(directoryFor(req, connection), {
    method: req.method,
    path,
    query: req.query,
    body: req.method === "GET" || req.method === "DELETE" ? undefined : req.body,
    baseUrl: `${req.authUrl}/sso/scim/${encodeURIComponent(connectionId)}/v2`,
    ...(ifMatch !== undefined && { ifMatch }),
  })
  return answer(response)
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const

export const scimRoutes: ExtensionRoute<SsoLocals>[] = ["scim/:connection/v2/:resource", "scim/:connection/v2/:resource/:id"].flatMap((path) =>
  METHODS.map((method): ExtensionRoute<SsoLocals> => ({ method, path, access: "anyone", from: "anywhere", rateLimit: SCIM_LIMIT, handler: scim })),
)

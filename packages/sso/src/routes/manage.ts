/**
 * The JSON routes of managing an organization's SSO (`/auth/sso/organizations/:organization/…`),
 * one per operation of `operations.ts`: what a settings page of the app calls with
 * `fetch` (core checks the origin, the CSRF header, the session and step-up first).
 * @module
 */
import type { ExtensionRequest, ExtensionResponse, ExtensionRoute } from "@portcullis/core/extension"
import type { SsoLocals } from "../locals.js"
import { ssoOperations, type ConnectionInput } from "../operations.js"

type Handler = (ops: ReturnType<typeof ssoOperations>, req: ExtensionRequest<SsoLocals>, org: string) => Promise<unknown>

const route = (method: "GET" | "POST", path: string, run: Handler, status = 200): ExtensionRoute<SsoLocals> => ({
  method,
  path: `organizations/:organization/${path}`,
  async handler(req): Promise<ExtensionResponse> {
    const result = await run(ssoOperations(req, req.locals), req, req.params.organization!)
    return { json: (result ?? { ok: true }) as object, status }
  },
})

const str = (value: unknown) => (typeof value === "string" ? value : "")

export const manageRoutes: ExtensionRoute<SsoLocals>[] = [
  route("GET", "connections", (ops, _req, org) => ops.listConnections(org)),
  route("POST", "connections", (ops, req, org) => ops.createConnection(org, req.body as unknown as ConnectionInput), 201),
  route("POST", "connections/:connection", (ops, req, org) => ops.updateConnection(org, req.params.connection!, req.body as Partial<ConnectionInput>)),
  route("POST", "connections/:connection/delete", (ops, req, org) => ops.deleteConnection(org, req.params.connection!)),
  route("POST", "connections/:connection/test", (ops, req, org) => ops.testConnection(org, req.params.connection!)),
  route("GET", "connections/:connection/scim-tokens", (ops, req, org) => ops.listScimTokens(org, req.params.connection!)),
  route("POST", "connections/:connection/scim-tokens", (ops, req, org) => ops.createScimToken(org, req.params.connection!), 201),
  route("POST", "connections/:connection/scim-tokens/:token/revoke", (ops, req, org) => ops.revokeScimToken(org, req.params.connection!, req.params.token!)),
  route("GET", "domains", (ops, _req, org) => ops.listDomains(org)),
  route("POST", "domains", (ops, req, org) => ops.claimDomain(org, str(req.body.domain)), 201),
  route("POST", "domains/:domain/verify", (ops, req, org) => ops.verifyDomain(org, req.params.domain!)),
  route("POST", "domains/:domain/policy", (ops, req, org) =>
    ops.setDomainPolicy(org, req.params.domain!, {
      ...(typeof req.body.requireSso === "boolean" && { requireSso: req.body.requireSso }),
      ...(req.body.requireSso === "true" || req.body.requireSso === "on" ? { requireSso: true } : req.body.requireSso === "false" ? { requireSso: false } : {}),
      ...(req.body.connectionId !== undefined && { connectionId: typeof req.body.connectionId === "string" && req.body.connectionId ? req.body.connectionId : null }),
    }),
  ),
  route("POST", "domains/:domain/delete", (ops, req, org) => ops.removeDomain(org, req.params.domain!)),
]

/**
 * The SSO settings page of an organization (`GET /auth/sso/organizations/:organization`) and
 * its no-JS forms (`POST …/forms/<action>`). Core has checked the origin, the CSRF token and
 * the session before a handler runs; the same `ssoOperations` as the JSON routes check that
 * the caller manages the organization (anyone else: the 404 a missing one gets) and ask for a
 * re-authentication before the changes that open or close a way in.
 * @module
 */
import { ExtensionRequestError, StepUpRequired, type ExtensionRequest, type ExtensionResponse, type ExtensionRoute } from "@portcullis/core/extension"
import type { SsoLocals } from "../locals.js"
import { ssoOperations, type ConnectionInput } from "../operations.js"
import { SamlRejected } from "../saml/errors.js"
import { settingsPage, settingsUrl, type SettingsData, type SettingsNotice } from "../pages.js"

type Request = ExtensionRequest<SsoLocals>
type Operations = ReturnType<typeof ssoOperations>

const PAGE = "organizations/:organization"

const str = (value: unknown): string => (typeof value === "string" ? value.trim() : "")

/** Everything the page shows, read through the operations (which check the caller first). */
async function settingsData(ops: Operations, organizationId: string): Promise<SettingsData> {
  const connections = await ops.listConnections(organizationId)
  const domains = await ops.listDomains(organizationId)
  const scimTokens: SettingsData["scimTokens"] = {}
  for (const c of connections) scimTokens[c.id] = await ops.listScimTokens(organizationId, c.id)
  return { organizationId, connections, scimTokens, domains }
}

/**
 * What a refused form becomes: the input's refusal as `?error=<code>` on the page, a stale
 * session sent to re-authenticate and come back; anything else (not a manager, a store
 * outage) is answered by core as such, never turned into a notice.
 */
function refused(req: Request, error: unknown): ExtensionResponse {
  const back = settingsUrl(req.authUrl, req.params.organization ?? "")
  if (error instanceof StepUpRequired) return { redirect: `${req.authUrl}/reauthenticate?callbackUrl=${encodeURIComponent(back)}` }
  if (!(error instanceof ExtensionRequestError) || error.code === "not-found" || error.status === 403) throw error
  // Metadata the SAML checks refused has a dozen codes; its owner needs one sentence. A code
  // without a sentence becomes the general one, never a page without a notice.
  const code = error instanceof SamlRejected ? "invalid-metadata" : req.t(`error.${error.code}`) === `error.${error.code}` ? "invalid-input" : error.code
  return { redirect: `${back}?error=${encodeURIComponent(code)}` }
}

/** A form that changes something, then sends the browser back to the page with `?done=<done>`. */
function form(path: string, act: (ops: Operations, req: Request, organizationId: string) => Promise<unknown>, done: string): ExtensionRoute<SsoLocals> {
  return {
    method: "POST",
    path: `${PAGE}/forms/${path}`,
    answers: "page",
    async handler(req): Promise<ExtensionResponse> {
      const organizationId = req.params.organization!
      try {
        await act(ssoOperations(req, req.locals), req, organizationId)
      } catch (error) {
        return refused(req, error)
      }
      return { redirect: `${settingsUrl(req.authUrl, organizationId)}?done=${done}` }
    },
  }
}

/** A form whose answer is the page itself with something shown once (a test's result, a new token): never a URL holding it. */
function shown(path: string, act: (ops: Operations, req: Request, organizationId: string) => Promise<SettingsNotice>): ExtensionRoute<SsoLocals> {
  return {
    method: "POST",
    path: `${PAGE}/forms/${path}`,
    answers: "page",
    async handler(req): Promise<ExtensionResponse> {
      const organizationId = req.params.organization!
      const ops = ssoOperations(req, req.locals)
      let notice: SettingsNotice
      try {
        notice = await act(ops, req, organizationId)
      } catch (error) {
        return refused(req, error)
      }
      return settingsPage(req, await settingsData(ops, organizationId), notice)
    },
  }
}

function samlInput(req: Request): ConnectionInput {
  const xml = str(req.body.metadataXml)
  const url = str(req.body.metadataUrl)
  return { kind: "saml", name: str(req.body.name), saml: xml ? { metadataXml: xml } : url ? { metadataUrl: url } : {} }
}

function oidcInput(req: Request): ConnectionInput {
  const secret = str(req.body.clientSecret)
  return { kind: "oidc", name: str(req.body.name), oidc: { issuer: str(req.body.issuer), clientId: str(req.body.clientId), ...(secret && { clientSecret: secret }) } }
}

const connection = (req: Request) => req.params.connection!
const domain = (req: Request) => req.params.domain!

export const pageRoutes: ExtensionRoute<SsoLocals>[] = [
  {
    method: "GET",
    path: PAGE,
    answers: "page",
    async handler(req): Promise<ExtensionResponse> {
      return settingsPage(req, await settingsData(ssoOperations(req, req.locals), req.params.organization!))
    },
  },
  form("saml", (ops, req, org) => ops.createConnection(org, samlInput(req)), "connectionCreated"),
  form("oidc", (ops, req, org) => ops.createConnection(org, oidcInput(req)), "connectionCreated"),
  form("connections/:connection/enable", (ops, req, org) => ops.updateConnection(org, connection(req), { enabled: true }), "connectionEnabled"),
  form("connections/:connection/disable", (ops, req, org) => ops.updateConnection(org, connection(req), { enabled: false }), "connectionDisabled"),
  form("connections/:connection/delete", (ops, req, org) => ops.deleteConnection(org, connection(req)), "connectionDeleted"),
  shown("connections/:connection/test", async (ops, req, org) => ({ kind: "test", ...(await ops.testConnection(org, connection(req))) })),
  shown("connections/:connection/scim-tokens", async (ops, req, org) => {
    const made = await ops.createScimToken(org, connection(req))
    const name = (await ops.listConnections(org)).find((c) => c.id === connection(req))?.name ?? ""
    return { kind: "scimToken", connectionName: name, token: made.token, scimBaseUrl: made.scimBaseUrl }
  }),
  form("connections/:connection/scim-tokens/:token/revoke", (ops, req, org) => ops.revokeScimToken(org, connection(req), req.params.token!), "scimTokenRevoked"),
  form("domains", (ops, req, org) => ops.claimDomain(org, str(req.body.domain)), "domainClaimed"),
  form("domains/:domain/verify", (ops, req, org) => ops.verifyDomain(org, domain(req)), "domainVerified"),
  form("domains/:domain/require", (ops, req, org) => ops.setDomainPolicy(org, domain(req), { requireSso: true }), "ssoRequired"),
  form("domains/:domain/allow", (ops, req, org) => ops.setDomainPolicy(org, domain(req), { requireSso: false }), "ssoNotRequired"),
  form("domains/:domain/delete", (ops, req, org) => ops.removeDomain(org, domain(req)), "domainRemoved"),
]

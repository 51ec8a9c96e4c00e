/**
 * `token` (RFC 6749 §3.2): a form post from anywhere (the client's back channel), the client
 * authenticated by its registered method, then the grant's handler from `grants/index.ts`.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse } from "@portcullis/core/extension"
import { authenticateClient } from "../client-auth.js"
import { OAuthError, oauthEndpoint } from "../errors.js"
import { grants } from "../grants/index.js"
import { issuerOf, routesBase, type Locals } from "../locals.js"

/** The form's parameters as strings; a repeated parameter is `invalid_request` (RFC 6749 §3.2). */
export function formOf(req: ExtensionRequest<Locals>): Record<string, string | undefined> {
  // RFC 6749 §3.2: the parameters come form-encoded (core would parse a JSON body too).
  if (!/^application\/x-www-form-urlencoded\b/i.test(req.headers.get("content-type") ?? "")) throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded")
  const out: Record<string, string | undefined> = {}
  for (const [name, value] of Object.entries(req.body)) {
    if (typeof value === "string") out[name] = value
    else throw new OAuthError("invalid_request", `${name} must be sent once`)
  }
  // `body` keeps the last of a repeated name: the form as sent shows the repeat (two `code`s
  // read differently by a proxy and by us are parameter pollution).
  for (const name of new Set(req.form?.keys())) if (req.form!.getAll(name).length > 1) throw new OAuthError("invalid_request", `${name} must be sent once`)
  return out
}

/** Core counts the failure as an audit event, without the secret. */
export function clientAuthAudit(req: ExtensionRequest<Locals>) {
  return (reason: string, clientId?: string) => req.audit({ type: "clientAuthFailed", outcome: "failure", reason, ...(clientId && { details: { clientId: clientId.slice(0, 200) } }) })
}

export async function token(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => {
    const { locals } = req
    await locals.ready
    const issuer = issuerOf(locals, req)
    const body = formOf(req)
    const handler = body.grant_type ? grants[body.grant_type] : undefined
    if (!body.grant_type) throw new OAuthError("invalid_request", "grant_type is required")
    const client = await authenticateClient(locals, issuer, `${routesBase(req)}/token`, req.headers, req.body, clientAuthAudit(req))
    if (!handler || !Object.hasOwn(grants, body.grant_type)) throw new OAuthError("unsupported_grant_type", `grant_type ${body.grant_type} is not supported`)
    const answer = await handler({ req, locals, client, body, issuer })
    await req.audit({ type: "tokenIssued", outcome: "success", details: { clientId: client.clientId, grantType: body.grant_type } })
    return { json: answer, headers: { "Cache-Control": "no-store", Pragma: "no-cache" } }
  })
}

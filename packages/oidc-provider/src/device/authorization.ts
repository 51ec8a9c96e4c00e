/**
 * The device authorization endpoint (RFC 8628 §3.1–3.2): a client on a device without a
 * browser (a TV, a CLI on a server) asks for a device code — kept only as its SHA-256 — and
 * a user code the person types at `<issuer>/device` on their phone or computer.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse } from "@portcullis/core/extension"
import { authenticateClient } from "../client-auth.js"
import { OAuthError, oauthEndpoint } from "../errors.js"
import { issuerOf, routesBase, type Locals } from "../locals.js"
import { randomToken, sha256Hex } from "../random.js"
import { resourcesOf } from "../resources.js"
import { clientAuthAudit, formOf } from "../routes/token.js"
import { DEVICE_GRANT, displayUserCode, newUserCode } from "./codes.js"

/** Seconds a device code lives: long enough to find a phone and type eight letters. */
export const DEVICE_CODE_TTL = 600
/** Seconds between polls (RFC 8628 §3.2 default). */
export const DEVICE_INTERVAL = 5

export async function deviceAuthorization(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => {
    const { locals } = req
    await locals.ready
    const issuer = issuerOf(locals, req)
    const body = formOf(req)
    const client = await authenticateClient(locals, issuer, `${routesBase(req)}/device_authorization`, req.headers, req.body, clientAuthAudit(req))
    if (!(client.grantTypes as string[]).includes(DEVICE_GRANT)) throw new OAuthError("unauthorized_client", "This client may not use the device authorization grant")
    const allowed = new Set(client.scope.split(" ").filter(Boolean))
    const scopes = body.scope === undefined ? [...allowed] : [...new Set(body.scope.split(" ").filter(Boolean))]
    if (!scopes.length) throw new OAuthError("invalid_scope", "scope is required")
    for (const s of scopes) if (!allowed.has(s) || !locals.options.scopes.includes(s)) throw new OAuthError("invalid_scope", `scope ${s} is not allowed for this client`)
    // One resource per request: the form reader refuses a repeated parameter.
    const resources = resourcesOf(body.resource ? [body.resource] : [], client, locals)
    const deviceCode = randomToken(32)
    const userCode = newUserCode()
    await locals.store.createDevice({
      deviceCodeHash: await sha256Hex(deviceCode),
      userCode,
      clientId: client.clientId,
      scope: scopes.join(" "),
      resources,
      status: "pending",
      interval: DEVICE_INTERVAL,
      expiresAt: new Date(Date.now() + DEVICE_CODE_TTL * 1000),
    })
    const verification = `${routesBase(req)}/device`
    return {
      json: {
        device_code: deviceCode,
        user_code: displayUserCode(userCode),
        verification_uri: verification,
        verification_uri_complete: `${verification}?user_code=${displayUserCode(userCode)}`,
        expires_in: DEVICE_CODE_TTL,
        interval: DEVICE_INTERVAL,
      },
      headers: { "Cache-Control": "no-store" },
    }
  })
}

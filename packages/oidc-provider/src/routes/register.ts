/**
 * Dynamic client registration (RFC 7591) at `register`, and reading or deleting a
 * registration with its registration access token (RFC 7592) at `register/:clientId`.
 * Served only when `registration` is configured.
 *
 * Every secret handed out here — the client secret, the registration access token — is
 * random (256 bits), shown once in the answer and kept only as its SHA-256.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse } from "@portcullis/core/extension"
import { OAuthError, oauthEndpoint } from "../errors.js"
import { issuerOf, routesBase, type Locals } from "../locals.js"
import { constantTimeEqual, randomToken, sha256Hex } from "../random.js"
import { readClientMetadata } from "../registration/metadata.js"
import type { RegistrationPolicy } from "../registration/options.js"
import type { OAuthClient } from "../store/types.js"

/** A bearer token refused (RFC 6750 §3.1): the same answer for missing, wrong and unknown. */
const badToken = (description: string) => new OAuthError("invalid_token", description, 401, 'Bearer error="invalid_token"')

function bearer(req: ExtensionRequest<Locals>): string | undefined {
  const match = /^Bearer ([\x21-\x7e]{1,512})$/i.exec(req.headers.get("authorization") ?? "")
  return match?.[1]
}

function policyOf(req: ExtensionRequest<Locals>): RegistrationPolicy {
  const policy = req.locals.options.registration
  // The routes exist only with a policy; this is the type's guard, not a path a request takes.
  if (!policy) throw new OAuthError("invalid_request", "Registration is not enabled", 404)
  return policy
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000)

/** The client's registration as RFC 7591 §3.2.1 answers it (secrets only when just made). */
function registrationJson(req: ExtensionRequest<Locals>, client: OAuthClient): Record<string, unknown> {
  return {
    client_id: client.clientId,
    client_id_issued_at: seconds(client.createdAt),
    ...(client.tokenEndpointAuthMethod !== "none" && { client_secret_expires_at: client.secretExpiresAt ? seconds(client.secretExpiresAt) : 0 }),
    registration_client_uri: `${routesBase(req)}/register/${encodeURIComponent(client.clientId)}`,
    token_endpoint_auth_method: client.tokenEndpointAuthMethod,
    redirect_uris: client.redirectUris,
    post_logout_redirect_uris: client.postLogoutRedirectUris,
    grant_types: client.grantTypes,
    response_types: client.grantTypes.includes("authorization_code") ? ["code"] : [],
    scope: client.scope,
    ...(client.name && { client_name: client.name }),
    ...(client.logoUri && { logo_uri: client.logoUri }),
    ...(client.clientUri && { client_uri: client.clientUri }),
    ...(client.policyUri && { policy_uri: client.policyUri }),
    ...(client.tosUri && { tos_uri: client.tosUri }),
  }
}

/** `POST register`: checks the caller (initial access token, or the open mode's cap), the metadata, then stores the client. */
export async function register(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => {
    const { locals } = req
    const policy = policyOf(req)
    if (policy.initialTokenHash) {
      const token = bearer(req)
      if (!token || !constantTimeEqual(await sha256Hex(token), await policy.initialTokenHash)) {
        await req.audit({ type: "clientRegistration", outcome: "failure", reason: "initial-access-token" })
        throw badToken("A valid initial access token is required to register")
      }
    }
    if (!/^application\/json\b/i.test(req.headers.get("content-type") ?? "")) throw new OAuthError("invalid_client_metadata", "The client metadata must be sent as application/json")
    const requested = readClientMetadata(req.body, policy)
    // Never back to the provider's own origin: its pages would take the code or the logout's
    // return and move it on (sign-in's callbackUrl), and the consent page would name the
    // provider's own host as where the user returns to.
    const own = new URL(issuerOf(locals, req)).origin
    for (const uri of [...requested.redirectUris, ...requested.postLogoutRedirectUris]) {
      if (new URL(uri).origin === own) throw new OAuthError("invalid_redirect_uri", `${uri.slice(0, 100)} is on the provider's own origin`)
    }
    const limitReached = async () => {
      await req.audit({ type: "clientRegistration", outcome: "failure", reason: "limit-reached" })
      return new OAuthError("temporarily_unavailable", "No more clients can be registered here for now", 503)
    }
    if (policy.open && (await locals.store.countDynamicClients()) >= policy.maxClients) throw await limitReached()
    const now = new Date(Math.floor(Date.now() / 1000) * 1000)
    const secret = requested.tokenEndpointAuthMethod === "none" ? undefined : randomToken(32)
    const registrationToken = randomToken(32)
    const client: OAuthClient = {
      clientId: `dyn_${randomToken(16)}`,
      ...requested,
      ...(secret && { secretHash: await sha256Hex(secret) }),
      ...(secret && policy.secretTtl && { secretExpiresAt: new Date(now.getTime() + policy.secretTtl * 1000) }),
      registrationTokenHash: await sha256Hex(registrationToken),
      dynamic: true,
      createdAt: now,
    }
    await locals.store.createClient(client)
    // The cap holds under concurrency: counted again after the insert, and a registration that
    // took the count past it withdraws itself. Racing ones at the edge may all withdraw (fewer
    // than the cap, never more); the store has no counted insert to do better in one step.
    if (policy.open && (await locals.store.countDynamicClients()) > policy.maxClients) {
      await locals.store.deleteClient(client.clientId)
      throw await limitReached()
    }
    await req.audit({ type: "clientRegistered", outcome: "success", details: { clientId: client.clientId, open: policy.open } })
    return {
      status: 201,
      json: { ...registrationJson(req, client), ...(secret && { client_secret: secret }), registration_access_token: registrationToken },
      headers: { "Cache-Control": "no-store" },
    }
  })
}

/** The dynamic client the request's registration access token is for; 401 otherwise (no oracle on which client ids exist). */
async function ownClient(req: ExtensionRequest<Locals>): Promise<OAuthClient> {
  policyOf(req)
  const token = bearer(req)
  const client = token ? await req.locals.store.getClient(req.params.clientId ?? "") : null
  if (!token || !client?.dynamic || !client.registrationTokenHash || !constantTimeEqual(await sha256Hex(token), client.registrationTokenHash)) {
    throw badToken("A valid registration access token is required")
  }
  return client
}

/** `GET register/:clientId` (RFC 7592 §2.1): the registration, without its secrets. */
export async function readRegistration(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => ({ json: registrationJson(req, await ownClient(req)), headers: { "Cache-Control": "no-store" } }))
}

/** `DELETE register/:clientId` (RFC 7592 §2.3): the client stops existing: no code, token or refresh for it any more. */
export async function deleteRegistration(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return oauthEndpoint(async () => {
    const client = await ownClient(req)
    // Of concurrent deletions, one deletes; the others find it gone, as a later one would.
    if (!(await req.locals.store.deleteClient(client.clientId))) throw badToken("A valid registration access token is required")
    await req.audit({ type: "clientDeleted", outcome: "success", details: { clientId: client.clientId } })
    return { empty: true, status: 204, headers: { "Cache-Control": "no-store" } }
  })
}

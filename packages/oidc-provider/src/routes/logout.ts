/**
 * RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0): `id_token_hint` (ours, maybe
 * expired), `client_id`, `post_logout_redirect_uri` (registered exactly for that client),
 * `state`. A confirmation page signs the browser out through core's own `signout` form, whose
 * callback (`logout/done`) revokes the grants made through that session and returns to the
 * client's URI.
 * @module
 */
import { html, type ExtensionRequest, type ExtensionResponse } from "@portcullis/core/extension"
import { findClient, type Client } from "../clients.js"
import { issuerOf, routesBase, type Locals } from "../locals.js"
import { errorPage, logoutPage } from "../pages.js"
import { randomToken } from "../random.js"
import { verifyOwnIdToken } from "../tokens.js"
import { withParams } from "./authorize.js"

type Req = ExtensionRequest<Locals>

interface PendingLogout {
  /** Where to return, already checked (with `state`), or none. */
  returnTo?: string
  /** The session whose grants end. */
  sessionKey: string
}

export async function logout(req: Req): Promise<ExtensionResponse> {
  const { locals } = req
  const issuer = issuerOf(locals, req)
  const params = req.url.searchParams
  const hint = params.get("id_token_hint") ?? undefined
  const clientId = params.get("client_id") ?? undefined
  const postLogout = params.get("post_logout_redirect_uri") ?? undefined
  const state = params.get("state") ?? undefined
  let audience: string | undefined
  if (hint) {
    const claims = await verifyOwnIdToken(locals, issuer, hint)
    if (!claims) return errorPage(req, "invalid-logout")
    audience = Array.isArray(claims.aud) ? claims.aud[0] : claims.aud
    if (clientId && clientId !== audience) return errorPage(req, "invalid-logout")
  }
  const id = clientId ?? audience
  let client: Client | null = null
  if (id) {
    client = await findClient(locals.clients, locals.store, id)
    if (!client) return errorPage(req, "invalid-logout")
  }
  let returnTo: string | undefined
  if (postLogout) {
    // Only to a URI the identified client registered for this, exactly: never an open redirect.
    if (!client || !client.postLogoutRedirectUris.includes(postLogout)) return errorPage(req, "invalid-logout")
    returnTo = withParams(postLogout, { state })
  }
  const session = await req.session()
  if (!session) {
    if (returnTo) return { redirect: returnTo }
    return req.page(req.t("logout.title"), html`<h1>${req.t("logout.done")}</h1>`)
  }
  const pendingId = randomToken(24)
  const pending: PendingLogout = { sessionKey: session.key, ...(returnTo && { returnTo }) }
  await locals.store.putInteraction(`logout:${pendingId}`, JSON.stringify(pending), new Date(Date.now() + locals.options.ttl.interaction * 1000))
  return logoutPage(req, {
    ...(client && { client }),
    action: `${req.authUrl}/signout`,
    csrfToken: await req.csrfToken(),
    fields: { callbackUrl: `${routesBase(req)}/logout/done?id=${pendingId}` },
  })
}

/** GET `logout/done`: after core signed the browser out; revokes the session's grants and returns to the client. */
export async function logoutDone(req: Req): Promise<ExtensionResponse> {
  const { locals } = req
  const id = req.query.id ?? ""
  const raw = /^[A-Za-z0-9_-]{20,64}$/.test(id) ? await locals.store.takeInteraction(`logout:${id}`) : null
  if (!raw) return errorPage(req, "interaction-expired")
  const pending = JSON.parse(raw) as PendingLogout
  // Still signed in: the sign-out did not happen (the form was not sent through core).
  if (await req.session()) return errorPage(req, "invalid-logout")
  await locals.store.revokeGrantsOfSession(pending.sessionKey)
  if (pending.returnTo) return { redirect: pending.returnTo }
  return req.page(req.t("logout.title"), html`<h1>${req.t("logout.done")}</h1>`)
}

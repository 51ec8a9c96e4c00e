/**
 * The apps a user allowed: a page (`GET consents`) with a revoke button per app (`POST
 * consents/revoke`), and the same list as a fragment for an account center.
 * @module
 */
import type { ExtensionRequest, ExtensionResponse, ExtensionTools, SafeHtml } from "@portcullis/core/extension"
import type { Locals } from "../locals.js"
import { routesBase } from "../locals.js"
import { consentsFragment, errorPage } from "../pages.js"

/**
 * The signed-in user's "Apps with access to your account" as a fragment (revoke buttons
 * posting to this extension's routes), for a page of another extension (an account center).
 *
 * @example
 * ```ts
 * const section = await consentsSection(req) // inside another extension's page handler, with the provider's locals
 * ```
 */
export async function consentsSection(req: ExtensionTools & { locals: Locals; csrfToken(): Promise<string> }): Promise<SafeHtml> {
  const session = await req.requireSession()
  const consents = await req.locals.store.listConsents(session.userId)
  const names = new Map<string, string>()
  for (const c of consents) {
    const client = req.locals.clients.get(c.clientId) ?? (await req.locals.store.getClient(c.clientId))
    if (client?.name) names.set(c.clientId, client.name)
  }
  return consentsFragment(req.t, { consents, names, action: `${routesBase(req)}/consents/revoke`, csrfToken: await req.csrfToken() })
}

export async function consentsPage(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  return req.page(req.t("consents.title"), await consentsSection(req))
}

export async function revokeConsentRoute(req: ExtensionRequest<Locals>): Promise<ExtensionResponse> {
  const session = await req.requireSession()
  const clientId = typeof req.body.clientId === "string" ? req.body.clientId : ""
  // Only the caller's own consent is looked up: another user's, or none, is the same 404.
  if (!(await req.locals.store.revokeConsent(session.userId, clientId))) return errorPage(req, "unknown-consent", 404)
  await req.audit({ type: "consentRevoked", outcome: "success", userId: session.userId, details: { clientId } })
  return { redirect: req.body.returnTo === "account" ? `${req.authUrl}/account#ext-oidc` : `${routesBase(req)}/consents` }
}

/**
 * The end of every SSO sign-in, OIDC or SAML alike: the identity the IdP asserted becomes a
 * Portcullis sign-in (core's `req.signIn`: the user found, linked or created by its rules),
 * then a membership of the connection's organization with the role its rules map — created
 * on the first sign-in (just in time), re-mapped on later ones when the organization has
 * rules — and the organization made the session's active one.
 *
 * Only an address of a domain the organization verified is vouched for: it may create a
 * user (verified) or link to the existing user of that address. Any other address signs in
 * only an account already linked to this connection, never a new or someone else's user.
 * @module
 */
import { ExtensionRequestError, type ExtensionRequest, type ExtensionResponse } from "@portcullis/core/extension"
import { emailDomain } from "./domains.js"
import type { SsoLocals } from "./locals.js"
import { roleFor } from "./roles.js"
import type { Connection } from "./store/types.js"

/** What a connection's IdP asserted, after the protocol's checks. */
export interface Asserted {
  /** Stable per user at the IdP: the OIDC `sub`, the SAML NameID. */
  subject: string
  email: string | null
  name: string | null
  /** Claims or attributes, for the role rules and the `signIn` callback's `profile`. */
  attributes: Record<string, unknown>
  callbackUrl?: string
  /** SAML only: what a single logout names the IdP's session by. */
  logout?: { nameIdFormat: string | null; sessionIndex: string | null }
}

/** How long the single-logout records of a session are kept at most (a session's own end comes first). */
const LOGOUT_RECORD_MAX = 30 * 24 * 3600 * 1000

/** The account provider of a connection's users (`Account.provider`): never a configured provider's id. */
export const accountProvider = (connection: Connection) => `sso:${connection.id}`

export async function completeSsoSignIn(req: ExtensionRequest<SsoLocals>, connection: Connection, asserted: Asserted): Promise<ExtensionResponse> {
  const { store, organizations } = req.locals
  const domain = asserted.email ? emailDomain(asserted.email) : null
  const claim = domain ? await store.getDomain(domain) : null
  const vouched = !!claim && claim.verifiedAt !== null && claim.organizationId === connection.organizationId
  const details = { connectionId: connection.id, organizationId: connection.organizationId, kind: connection.kind }
  // Asked before any session exists, by the address; again below by the user it signs in (an account linked under another address).
  const known = asserted.email ? await req.locals.getUserByEmail(asserted.email) : null
  if (known && (await deprovisioned(req, connection, known.id))) {
    await req.audit({ type: "signIn", outcome: "failure", userId: known.id, reason: "deprovisioned", details })
    throw deprovisionedError()
  }
  const outcome = await req.signIn({
    provider: accountProvider(connection),
    providerAccountId: asserted.subject,
    type: connection.kind,
    ...(asserted.email && { email: asserted.email }),
    emailVerified: vouched,
    name: asserted.name,
    profile: asserted.attributes,
    ...(asserted.callbackUrl && { callbackUrl: asserted.callbackUrl }),
  })
  if (!outcome.userId) {
    await req.audit({ type: "signIn", outcome: "failure", reason: outcome.refused ?? "redirected", details: { ...details, vouched } })
    return outcome.response
  }
  const userId = outcome.userId
  if (userId !== known?.id && (await deprovisioned(req, connection, userId))) {
    // Only the session just made ends (recorded, then ended as SCIM ends them): their other organizations' sessions stay.
    if (outcome.session) {
      await store.recordSession(outcome.session.key, userId, connection.organizationId, outcome.session.expires)
      await store.endSessions(userId, connection.organizationId)
    }
    await req.audit({ type: "signIn", outcome: "failure", userId, reason: "deprovisioned", details })
    throw deprovisionedError()
  }
  const role = roleFor(connection.roleRules, connection.defaultRole, asserted.attributes)
  let added: Awaited<ReturnType<typeof organizations.addMember>> | undefined
  try {
    added = await organizations.addMember({ organizationId: connection.organizationId, userId, role, createdAt: new Date() })
    if (added === "already-member" && connection.roleRules.length > 0) {
      // The IdP's groups are the truth for members it manages; an owner is never demoted by it.
      const current = await organizations.getMembership(connection.organizationId, userId)
      if (current && current.role !== "owner" && current.role !== role) await organizations.setRole(connection.organizationId, userId, role, current.role)
    }
    if (added === "added") await req.audit({ type: "memberProvisioned", outcome: "success", userId, details: { ...details, role } })
    if (outcome.session) {
      await store.recordSession(outcome.session.key, userId, connection.organizationId, outcome.session.expires)
      if (asserted.logout) await rememberForLogout(req, connection, userId, asserted, outcome.session)
      const organizationsKey = outcome.session.keys.organizations
      if (organizationsKey && (added === "added" || added === "already-member")) {
        await organizations.setActiveOrganization(organizationsKey, connection.organizationId, outcome.session.expires)
      }
    }
  } catch (error) {
    await undoSignIn(req, connection, userId, added === "added", outcome.session !== null)
    throw error
  }
  await req.audit({ type: "signIn", outcome: "success", userId, details: { ...details, isNewUser: outcome.isNewUser, membership: added } })
  return outcome.response
}

/**
 * What single logout needs later: by the session (this app's sign-out asks the IdP to end its
 * session: `saml-logout-of`), and by the IdP's subject (the IdP asks this app to end the
 * person's sessions: `saml-subject`). Kept in the shared store, as single-use records.
 */
async function rememberForLogout(req: ExtensionRequest<SsoLocals>, connection: Connection, userId: string, asserted: Asserted, session: { key: string; expires: Date }): Promise<void> {
  const expires = new Date(Math.min(session.expires.getTime(), Date.now() + LOGOUT_RECORD_MAX))
  const record = { connectionId: connection.id, nameId: asserted.subject, ...asserted.logout }
  await req.locals.store.put("saml-logout-of", session.key, JSON.stringify(record), expires)
  await req.locals.store.put("saml-subject", `${connection.id}\n${asserted.subject}`, JSON.stringify({ userId }), expires)
}

/**
 * Whether the organization's SCIM client deactivated this user (`active: false`): SCIM owns the
 * membership of the people it provisions, so an IdP that still signs them in (a session it
 * kept, a deprovisioning not synced there yet) does not make them a member again. SCIM
 * reactivating them lets them in again.
 */
async function deprovisioned(req: ExtensionRequest<SsoLocals>, connection: Connection, userId: string): Promise<boolean> {
  const record = await req.locals.store.getScimUser(connection.organizationId, userId)
  return record !== null && !record.active
}

const deprovisionedError = () => new ExtensionRequestError("deprovisioned", "Your access to this organization was removed by its administrator", 403)

/**
 * Half an SSO sign-in must not stand when a store fails after core made the session: a session
 * the SSO store has no record of is one SCIM deprovisioning could not end, and a membership
 * made for it is one nobody signed in to. The user's sessions are revoked (the browser is
 * signed out; they sign in again once the store is back) and the membership made is removed,
 * each as far as the stores allow; the store's error is what the request answers (503).
 */
async function undoSignIn(req: ExtensionRequest<SsoLocals>, connection: Connection, userId: string, memberAdded: boolean, sessionMade: boolean): Promise<void> {
  if (sessionMade && req.admin.capabilities().sessions) await req.admin.revokeSessions(userId).catch(() => 0)
  if (memberAdded) await req.locals.organizations.removeMember(connection.organizationId, userId).catch(() => undefined)
  req.locals.logger.warn("sso-sign-in-undone", { connectionId: connection.id, sessionRevoked: sessionMade, membershipRemoved: memberAdded })
}

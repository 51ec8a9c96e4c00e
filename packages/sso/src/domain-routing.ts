/**
 * From an email address to its organization's SSO: the verified domain claim it falls under,
 * and the connection the sign-in page sends it to.
 * @module
 */
import { emailDomain } from "./domains.js"
import type { Connection, Domain, SsoStore } from "./store/types.js"

/** What SSO an email address falls under. */
export interface EmailSso {
  /** The verified claim of the address's domain (its `requireSso` says whether other sign-ins are refused). */
  domain: Domain
  /** The connection to send the address to; `null` when the organization has no enabled connection. */
  connection: Connection | null
}

/**
 * The SSO of `email`: the verified claim of its domain (`ada@acme.com` → `acme.com`, exactly:
 * a subdomain is claimed on its own) and the connection to send it to — the claim's
 * `connectionId` when that connection is enabled, else the organization's first enabled one.
 * `null` when no organization verified the domain, or `email` has no claimable domain.
 *
 * A store failure is thrown, never read as "no SSO": with `requireSso` that would let a
 * password sign-in through during an outage.
 *
 * @example
 * ```ts
 * import { ssoForEmail } from "@portcullis/sso"
 *
 * const sso = await ssoForEmail(store, "ada@acme.com")
 * if (sso?.connection) redirectTo(`/auth/sso/${sso.connection.kind}/${sso.connection.id}/start`)
 * else if (sso?.domain.requireSso) refuse("Your organization signs in with SSO")
 * ```
 */
export async function ssoForEmail(store: SsoStore, email: string): Promise<EmailSso | null> {
  const name = emailDomain(email)
  if (!name) return null
  const domain = await store.getDomain(name)
  // Checked again rather than trusted: a pending claim (anyone can make one) must never route.
  if (!domain || domain.verifiedAt === null || domain.domain !== name) return null
  return { domain, connection: await connectionOf(store, domain) }
}

async function connectionOf(store: SsoStore, domain: Domain): Promise<Connection | null> {
  // Only a connection of the claim's own organization: a stale id must not send its members elsewhere.
  const usable = (connection: Connection | null): connection is Connection =>
    connection !== null && connection.enabled && connection.organizationId === domain.organizationId
  if (domain.connectionId) {
    const routed = await store.getConnection(domain.connectionId)
    if (usable(routed)) return routed
  }
  return (await store.listConnections(domain.organizationId)).find(usable) ?? null
}

/**
 * What the SSO extension keeps per configuration (`setup`'s result): its stores, wrapped by
 * core (bounded, a failure an outage), the domain verifier and the SAML settings.
 * @module
 */
import type { OrganizationStore } from "@portcullis/organizations"
import type { SsoStore } from "./store/types.js"

/** Checks a domain's TXT record (`domains.ts`'s verifier, or the app's own). */
export interface DomainChecker {
  check(domain: string, token: string): Promise<"verified" | "not-found">
}

export interface SsoLocals {
  store: SsoStore
  organizations: OrganizationStore
  /** The adapter's `getUserByEmail` (core's, wrapped): SCIM links a provisioned person to their existing account. */
  getUserByEmail(email: string): Promise<{ id: string; email?: string | null; emailVerified?: Date | null } | null>
  domains: DomainChecker
  /** Seconds of clock difference accepted between this app and an IdP (SAML `NotBefore`/`NotOnOrAfter`). */
  clockSkew: number
  /** Fetch for IdP metadata URLs (the configuration's, so tests and proxies apply). */
  fetch: typeof fetch
  logger: { warn(code: string, ...message: unknown[]): void }
}

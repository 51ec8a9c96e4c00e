/**
 * `@portcullis/sso`: enterprise SSO for organizations — per-organization OpenID Connect and
 * SAML 2.0 connections, verified email domains, just-in-time membership and SCIM 2.0
 * provisioning — built on the public extension API (docs/sso.md).
 *
 * @example
 * ```ts
 * import { organizations } from "@portcullis/organizations"
 * import { memoryOrganizationStore } from "@portcullis/organizations/memory"
 * import { sso } from "@portcullis/sso"
 * import { memorySsoStore } from "@portcullis/sso/memory"
 *
 * const orgStore = memoryOrganizationStore()
 * export const config = {
 *   adapter,
 *   providers,
 *   extensions: [organizations({ store: orgStore }), sso({ store: memorySsoStore(), organizations: orgStore })],
 * }
 * ```
 * @module
 */
import { defineExtension, InvalidConfig, type Extension } from "@portcullis/core/extension"
import type { OrganizationStore } from "@portcullis/organizations"
import { createDomainVerifier, emailDomain } from "./domains.js"
import type { DomainChecker, SsoLocals } from "./locals.js"
import { messages } from "./messages.js"
import { ssoOperations, type SsoServer } from "./operations.js"
import { manageRoutes } from "./routes/manage.js"
import { pageRoutes } from "./routes/pages.js"
import { scimRoutes } from "./routes/scim.js"
import { connectionForEmail, signInRoutes } from "./routes/sign-in.js"
import type { SsoStore } from "./store/types.js"

export type { Connection, Domain, OidcConnectionSettings, RoleRule, SamlConnectionSettings, ScimGroup, ScimToken, ScimUser, SsoStore } from "./store/types.js"
export type { ConnectionInput, ConnectionView, DomainView, SsoServer } from "./operations.js"
export type { DomainChecker, SsoLocals } from "./locals.js"
export type { SettingsData, SettingsNotice } from "./pages.js"
export { roleFor } from "./roles.js"
export {
  createDomainVerifier,
  createVerificationToken,
  DnsUnavailable,
  emailDomain,
  normalizeDomain,
  verificationRecord,
  VERIFICATION_LABEL,
  VERIFICATION_PREFIX,
} from "./domains.js"
export type { DomainVerifier, DomainVerifierOptions, VerificationRecord } from "./domains.js"
export { ssoForEmail } from "./domain-routing.js"
export type { EmailSso } from "./domain-routing.js"
export { messages } from "./messages.js"

/** The options of {@link sso}. */
export interface SsoOptions {
  /** Where connections, domains, SCIM resources and single-use records live: `memorySsoStore()`, `sqlSsoStore(db)`, `redisSsoStore(redis)`. */
  store: SsoStore
  /** The organizations extension's store (the same object passed to `organizations({ store })`): memberships are made there. */
  organizations: OrganizationStore
  /**
   * How domain claims are checked: DNS servers to ask (`["10.0.0.2"]`, `["127.0.0.1:5353"]`;
   * default the system's), a timeout, or a checker of your own.
   */
  dns?: { servers?: string[]; timeoutMs?: number } | DomainChecker
  /** Seconds of clock difference accepted with an IdP's SAML assertions (`NotBefore`, `NotOnOrAfter`). Default 60, at most 300. */
  clockSkew?: number
}

/** The SSO extension. */
export type SsoExtension = Extension<"sso", SsoServer, SsoLocals>

/** The account provider of SSO sign-ins starts with this (`sso:<connection id>`). */
const SSO_PROVIDER = "sso:"

/**
 * Enterprise SSO: put it in the configuration's `extensions`, after `organizations`. Routes
 * under `<basePath>/sso`, the sign-in page's "Continue with …" for addresses of verified
 * domains, a gate refusing other ways in for domains that require SSO, and server functions as
 * `extensions.sso` in every integration.
 *
 * @throws `InvalidConfig` without a store or the organizations store.
 */
export function sso(options: SsoOptions): SsoExtension {
  if (!options || typeof options !== "object" || !options.store || typeof options.store.getConnection !== "function") {
    throw new InvalidConfig("sso: options.store is required (memorySsoStore(), sqlSsoStore(db) or redisSsoStore(redis))")
  }
  if (!options.organizations || typeof options.organizations.getMembership !== "function" || typeof (options.organizations as { addMember?: unknown }).addMember !== "function") {
    throw new InvalidConfig("sso: options.organizations must be the organizations extension's store (with addMember)")
  }
  const clockSkew = options.clockSkew ?? 60
  if (!Number.isInteger(clockSkew) || clockSkew < 0 || clockSkew > 300) throw new InvalidConfig("sso: clockSkew must be a whole number of seconds from 0 to 300")
  const dns = options.dns
  const checker: DomainChecker = dns && "check" in dns && typeof dns.check === "function" ? dns : createDomainVerifier(dns as { servers?: string[]; timeoutMs?: number } | undefined)
  return defineExtension({
    id: "sso",
    setup(host): SsoLocals {
      return {
        store: host.wrapStore("sso", options.store),
        organizations: host.wrapStore("organizations", options.organizations),
        getUserByEmail: host.getUserByEmail,
        domains: host.wrapStore("dns", checker),
        clockSkew,
        fetch: globalThis.fetch.bind(globalThis),
        logger: host.logger,
      }
    },
    messages,
    routes: [...signInRoutes, ...scimRoutes, ...manageRoutes, ...pageRoutes],
    // Ended by SCIM deprovisioning (or a removal) — asked on every check of a session, one store read.
    session: { valid: async ({ session, locals }) => !(await locals.store.sessionEnded(session.key)) },
    async signInRoute({ email, locals, authUrl, t }) {
      const found = await connectionForEmail(locals, email)
      return found ? { action: `${authUrl}/sso/start`, label: t("continue", { name: found.connection.name }), only: found.requireSso } : undefined
    },
    // A domain that requires SSO refuses every other way in for its addresses, wherever it becomes a session.
    async signInGate({ email, provider, locals }) {
      if (!email) return undefined
      const domain = emailDomain(email)
      const claim = domain ? await locals.store.getDomain(domain) : null
      if (!claim?.verifiedAt || !claim.requireSso) return undefined
      // Only the claiming organization's own connections are the way in: another organization's IdP is "another way".
      if (provider?.startsWith(SSO_PROVIDER)) {
        const connection = await locals.store.getConnection(provider.slice(SSO_PROVIDER.length))
        if (connection?.organizationId === claim.organizationId) return undefined
      }
      return { refuse: `the domain ${domain} requires single sign-on` }
    },
    server: (call) => ssoOperations(call, call.locals),
  })
}

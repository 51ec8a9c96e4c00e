/**
 * `@portcullis/sso`: enterprise SSO for organizations — per-organization OpenID Connect and
 * SAML 2.0 connections, verified email domains, just-in-time membership and SCIM 2.0
 * provisioning — built on the public extension API (docs/sso.md).
 * @module
 */
export type { Connection, Domain, OidcConnectionSettings, RoleRule, SamlConnectionSettings, ScimGroup, ScimToken, ScimUser, SsoStore } from "./store/types.js"
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

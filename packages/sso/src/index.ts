/**
 * `@portcullis/sso`: enterprise SSO for organizations — per-organization OpenID Connect and
 * SAML 2.0 connections, verified email domains, just-in-time membership and SCIM 2.0
 * provisioning — built on the public extension API (docs/sso.md).
 * @module
 */
export type { Connection, Domain, OidcConnectionSettings, RoleRule, SamlConnectionSettings, ScimGroup, ScimToken, ScimUser, SsoStore } from "./store/types.js"

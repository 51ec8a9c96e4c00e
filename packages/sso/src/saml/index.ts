/**
 * SAML 2.0 service provider for `@portcullis/sso` connections, on @node-saml/node-saml.
 * @module
 */
export { serviceProvider, type SamlOptions, type SamlAssertionResult, type SamlServiceProvider, type SamlLogoutResult } from "./service-provider.js"
export { SamlRejected, type SamlRejectionCode } from "./errors.js"
export { parseIdpMetadata, fetchIdpMetadata, type IdpMetadata, type FetchMetadataOptions } from "./metadata.js"
export { generateSpKey, type SpKey } from "./keys.js"

/**
 * SCIM 2.0 provisioning (RFC 7643/7644) for an organization: the request handler, its
 * tokens, and the directory interface the app implements.
 * @module
 */
export { scimRequest, handleScimRequest, type ScimRequest, type ScimEndpointOptions } from "./handler.js"
export { authenticateScim, hashScimToken, newScimToken } from "./auth.js"
export { ScimError, SCIM_CONTENT_TYPE, type ScimResponse, type ScimType } from "./errors.js"
export type { ScimDirectory } from "./directory.js"
export { parseFilter, matches, MAX_FILTER_LENGTH, type Filter } from "./filter.js"
export { scimFetchHandler, type ScimFetchOptions } from "./fetch.js"

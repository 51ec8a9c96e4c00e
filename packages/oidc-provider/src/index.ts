/**
 * `@portcullis/oidc-provider`: Portcullis as an OAuth 2.1 authorization server and OpenID Provider.
 * @module
 */
export type * from "./store/types.js"

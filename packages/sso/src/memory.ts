/**
 * `@portcullis/sso/memory`: SSO state in process memory, for tests, demos and one-process
 * apps. More than one instance needs `@portcullis/sso/sql` or `@portcullis/sso/redis`.
 * @module
 */
export { memorySsoStore } from "./store/memory.js"

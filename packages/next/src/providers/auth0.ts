/** `@portcullis/core/providers/auth0`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/auth0"
export * from "@portcullis/core/providers/auth0"

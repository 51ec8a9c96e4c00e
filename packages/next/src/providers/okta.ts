/** `@portcullis/core/providers/okta`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/okta"
export * from "@portcullis/core/providers/okta"

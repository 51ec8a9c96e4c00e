/** `@portcullis/core/providers/postmark`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/postmark"
export * from "@portcullis/core/providers/postmark"

/** `@portcullis/core/providers/email`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/email"
export * from "@portcullis/core/providers/email"

/** `@portcullis/core/providers/credentials`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/credentials"
export * from "@portcullis/core/providers/credentials"

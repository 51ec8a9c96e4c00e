/** `@portcullis/core/providers/google`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/google"
export * from "@portcullis/core/providers/google"

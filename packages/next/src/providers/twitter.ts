/** `@portcullis/core/providers/twitter`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/twitter"
export * from "@portcullis/core/providers/twitter"

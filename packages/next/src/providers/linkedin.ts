/** `@portcullis/core/providers/linkedin`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/linkedin"
export * from "@portcullis/core/providers/linkedin"

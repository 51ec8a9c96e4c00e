/** `@portcullis/core/providers/github`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/github"
export * from "@portcullis/core/providers/github"

/** `@portcullis/core/providers/reddit`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/reddit"
export * from "@portcullis/core/providers/reddit"

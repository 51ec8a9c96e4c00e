/** `@portcullis/core/providers/slack`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/slack"
export * from "@portcullis/core/providers/slack"

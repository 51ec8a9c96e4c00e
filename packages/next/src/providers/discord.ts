/** `@portcullis/core/providers/discord`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/discord"
export * from "@portcullis/core/providers/discord"

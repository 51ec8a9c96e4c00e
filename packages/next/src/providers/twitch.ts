/** `@portcullis/core/providers/twitch`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/twitch"
export * from "@portcullis/core/providers/twitch"

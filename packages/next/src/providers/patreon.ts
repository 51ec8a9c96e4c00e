/** `@portcullis/core/providers/patreon`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/patreon"
export * from "@portcullis/core/providers/patreon"

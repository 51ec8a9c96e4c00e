/** `@portcullis/core/providers/spotify`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/spotify"
export * from "@portcullis/core/providers/spotify"

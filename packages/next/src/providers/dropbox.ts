/** `@portcullis/core/providers/dropbox`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/dropbox"
export * from "@portcullis/core/providers/dropbox"

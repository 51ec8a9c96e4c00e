/** `@portcullis/core/providers/bitbucket`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/bitbucket"
export * from "@portcullis/core/providers/bitbucket"

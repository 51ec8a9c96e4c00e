/** `@portcullis/core/providers/cognito`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/cognito"
export * from "@portcullis/core/providers/cognito"

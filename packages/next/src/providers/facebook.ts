/** `@portcullis/core/providers/facebook`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/facebook"
export * from "@portcullis/core/providers/facebook"

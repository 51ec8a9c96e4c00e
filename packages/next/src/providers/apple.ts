/** `@portcullis/core/providers/apple`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/apple"
export * from "@portcullis/core/providers/apple"

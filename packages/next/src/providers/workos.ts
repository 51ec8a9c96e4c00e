/** `@portcullis/core/providers/workos`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/workos"
export * from "@portcullis/core/providers/workos"

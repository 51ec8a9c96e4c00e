/** `@portcullis/core/providers/zoom`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/zoom"
export * from "@portcullis/core/providers/zoom"

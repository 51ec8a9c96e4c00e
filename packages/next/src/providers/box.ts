/** `@portcullis/core/providers/box`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/box"
export * from "@portcullis/core/providers/box"

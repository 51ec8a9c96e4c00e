/** `@portcullis/core/providers/zitadel`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/zitadel"
export * from "@portcullis/core/providers/zitadel"

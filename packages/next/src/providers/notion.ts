/** `@portcullis/core/providers/notion`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/notion"
export * from "@portcullis/core/providers/notion"

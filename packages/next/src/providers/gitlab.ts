/** `@portcullis/core/providers/gitlab`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/gitlab"
export * from "@portcullis/core/providers/gitlab"

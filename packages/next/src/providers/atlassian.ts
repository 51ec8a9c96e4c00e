/** `@portcullis/core/providers/atlassian`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/atlassian"
export * from "@portcullis/core/providers/atlassian"

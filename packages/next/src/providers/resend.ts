/** `@portcullis/core/providers/resend`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/resend"
export * from "@portcullis/core/providers/resend"

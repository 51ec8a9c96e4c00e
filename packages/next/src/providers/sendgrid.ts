/** `@portcullis/core/providers/sendgrid`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/sendgrid"
export * from "@portcullis/core/providers/sendgrid"

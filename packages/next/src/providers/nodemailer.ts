/** `@portcullis/core/providers/nodemailer`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/nodemailer"
export * from "@portcullis/core/providers/nodemailer"

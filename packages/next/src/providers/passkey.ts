/** `@portcullis/core/providers/passkey`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/passkey"
export * from "@portcullis/core/providers/passkey"

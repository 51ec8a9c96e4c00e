/** `@portcullis/core/providers/webauthn`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/webauthn"
export * from "@portcullis/core/providers/webauthn"

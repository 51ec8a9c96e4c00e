/** `@portcullis/core/providers/microsoft-entra-id`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/microsoft-entra-id"
export * from "@portcullis/core/providers/microsoft-entra-id"

/** `@portcullis/core/providers/authentik`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/authentik"
export * from "@portcullis/core/providers/authentik"

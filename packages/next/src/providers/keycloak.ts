/** `@portcullis/core/providers/keycloak`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/keycloak"
export * from "@portcullis/core/providers/keycloak"

/** `@portcullis/core/jwt` (`getToken`, `encode`, `decode`, `JWT`) under this package's name, as `next-auth/jwt`. @module */
export * from "@portcullis/core/jwt"

/** `@portcullis/core/providers/oauth`, re-exported so next-auth imports map one to one. @module */
export * from "@portcullis/core/providers/oauth"

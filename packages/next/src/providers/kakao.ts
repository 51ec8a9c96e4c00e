/** `@portcullis/core/providers/kakao`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/kakao"
export * from "@portcullis/core/providers/kakao"

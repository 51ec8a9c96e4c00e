/** `@portcullis/core/providers/naver`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/naver"
export * from "@portcullis/core/providers/naver"

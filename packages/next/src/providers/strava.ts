/** `@portcullis/core/providers/strava`, re-exported so next-auth imports map one to one. @module */
export { default } from "@portcullis/core/providers/strava"
export * from "@portcullis/core/providers/strava"

/**
 * `@portcullis/unstorage-adapter`: the Portcullis (and Auth.js) adapter over any unstorage
 * `Storage`: Cloudflare KV, Vercel KV / Upstash, Redis, the filesystem, memory, ...
 * @module
 */
export { UnstorageAdapter, type UnstorageAdapterOptions } from "./adapter.js"
export { unstorageKeys, type RecordKind, type UnstorageKeys } from "./keys.js"

/**
 * The adapter types, as `next-auth/adapters`: `Adapter`, `AdapterUser`, `AdapterAccount`,
 * `AdapterSession`, `VerificationToken`, `AdapterAuthenticator` (core's, under this package).
 *
 * @example
 * ```ts
 * import type { Adapter } from "@portcullis/next/adapters"
 * export const adapter: Adapter = MemoryAdapter()
 * ```
 * @module
 */
export * from "@portcullis/core/adapters"

// @auth/core declares these inside `next-auth/adapters` (a module augmentation), so apps
// could import them from there: JSON values as adapters store them.
export type JsonPrimitive = string | number | boolean | null
export type JsonObject = { [key in string]?: JsonValue }
export type JsonArray = JsonValue[]
export type JsonValue = JsonPrimitive | JsonObject | JsonArray

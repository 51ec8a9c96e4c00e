/**
 * The adapter types, as Auth.js's `<package>/adapters`: `Adapter`, `AdapterUser`, `AdapterAccount`,
 * `AdapterSession`, `VerificationToken`, `AdapterAuthenticator` (core's, under this package).
 *
 * @example
 * ```ts
 * import type { Adapter } from "@portcullis/qwik/adapters"
 * ```
 * @module
 */
export * from "@portcullis/core/adapters"

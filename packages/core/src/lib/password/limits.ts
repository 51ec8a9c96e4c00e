/**
 * The password length bound, apart from the hashing code: the new-password policy checks it
 * without loading Argon2 (`password.ts` brings hash-wasm through `lib/password/argon2.ts`).
 * @module
 */

/** Longest password accepted, in UTF-8 bytes: enough for any passphrase, bounded against abuse. */
export const MAX_PASSWORD_BYTES = 1024

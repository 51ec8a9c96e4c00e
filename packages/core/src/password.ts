/**
 * Password hashing for apps that keep passwords: argon2id at OWASP's parameters, stored as
 * PHC strings, with verification of bcrypt and scrypt hashes other libraries made so users
 * move to argon2id at their next sign-in.
 *
 * Runs on Node, Bun and Deno with the native `@node-rs/argon2` (an optional dependency;
 * its work runs off the event loop), and anywhere WebAssembly may be compiled at run time
 * with `hash-wasm`. Cloudflare Workers refuse run-time WebAssembly compilation: hash
 * passwords in a Node route there (see docs/passwords.md).
 *
 * @example
 * ```ts
 * import { hashPassword, verifyPassword, needsRehash } from "@portcullis/core/password"
 *
 * // sign-up
 * const stored = await hashPassword(password)
 *
 * // sign-in: pass `undefined` for an unknown user — the answer takes as long as for a known one
 * const user = await db.findUserByEmail(email)
 * if (!(await verifyPassword(password, user?.passwordHash))) return null
 * if (needsRehash(user.passwordHash)) await db.setPasswordHash(user.id, await hashPassword(password))
 * ```
 * @module
 */
import { UnsupportedPasswordHash } from "./errors.js"
import { argon2Backend, argon2ParamsOf, OWASP_ARGON2ID, type Argon2Params } from "./lib/password/argon2.js"
import { legacyFormatOf, verifyLegacy } from "./lib/password/legacy.js"
import { MAX_PASSWORD_BYTES } from "./lib/password/limits.js"

export type { Argon2Params }
export { OWASP_ARGON2ID }

/** Options of {@link hashPassword}, {@link verifyPassword} and {@link needsRehash}. */
export interface PasswordOptions extends Partial<Argon2Params> {
  /**
   * Which argon2 implementation to use: the native binding when it loads (default), or the
   * WebAssembly build. Hashes are interchangeable; this only changes speed.
   */
  implementation?: "native" | "wasm"
}

export { MAX_PASSWORD_BYTES } from "./lib/password/limits.js"

function paramsOf(options: PasswordOptions | undefined): Argon2Params {
  const p = { ...OWASP_ARGON2ID, ...pick(options) }
  for (const [key, value] of Object.entries(p)) {
    if (!Number.isSafeInteger(value) || value < 1) throw new TypeError(`password option ${key} must be a positive integer, got ${String(value)}`)
  }
  if (p.memoryCost < 8 * p.parallelism) throw new TypeError("password option memoryCost must be at least 8 KiB per lane")
  return p
}

function pick(options: PasswordOptions | undefined): Partial<Argon2Params> {
  const out: Partial<Argon2Params> = {}
  if (options?.memoryCost !== undefined) out.memoryCost = options.memoryCost
  if (options?.timeCost !== undefined) out.timeCost = options.timeCost
  if (options?.parallelism !== undefined) out.parallelism = options.parallelism
  return out
}

function tooLong(password: string): boolean {
  // Cheap upper bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  return password.length * 3 > MAX_PASSWORD_BYTES && new TextEncoder().encode(password).length > MAX_PASSWORD_BYTES
}

/**
 * Hashes a password with argon2id and a fresh 16-byte salt; returns the PHC string to store
 * (`$argon2id$v=19$m=19456,t=2,p=1$…$…`, about 100 characters).
 *
 * @throws TypeError when the password is not a non-empty string of at most
 *   {@link MAX_PASSWORD_BYTES} bytes, or an option is out of range.
 * @example
 * ```ts
 * const stored = await hashPassword("correct horse battery staple")
 * ```
 */
export async function hashPassword(password: string, options?: PasswordOptions): Promise<string> {
  if (typeof password !== "string" || password.length === 0) throw new TypeError("hashPassword needs a non-empty string")
  if (tooLong(password)) throw new TypeError(`passwords are limited to ${MAX_PASSWORD_BYTES} bytes`)
  const params = paramsOf(options)
  const backend = await argon2Backend(options?.implementation)
  return backend.hash(password, crypto.getRandomValues(new Uint8Array(16)), params)
}

/**
 * Whether `password` matches a stored hash: argon2id/argon2i/argon2d PHC strings, bcrypt
 * (`$2a$`/`$2b$`/`$2y$`), scrypt PHC strings and better-auth's `salt:key` scrypt hashes.
 *
 * Pass `null` or `undefined` when there is no such user: a full argon2id hash is still
 * computed, so the answer takes as long as a wrong password for a real user and response
 * times don't tell which addresses have accounts. Too long a password is `false`, after
 * the same work.
 *
 * @throws {@link UnsupportedPasswordHash} when the stored value is in no format above
 *   (a data problem to fix, not a wrong password), or its cost parameters are beyond safe
 *   bounds (a planted hash must not exhaust the server).
 * @example
 * ```ts
 * const ok = await verifyPassword(form.password, user?.passwordHash)
 * ```
 */
export async function verifyPassword(password: string, stored: string | null | undefined, options?: PasswordOptions): Promise<boolean> {
  const candidate = typeof password === "string" ? password : ""
  if (stored == null || candidate.length === 0 || tooLong(candidate)) {
    await hashPassword(candidate.length === 0 || tooLong(candidate) ? "\u0000" : candidate, options)
    return false
  }
  if (typeof stored !== "string") throw new UnsupportedPasswordHash("the stored password hash is not a string")
  if (argon2ParamsOf(stored)) {
    const backend = await argon2Backend(options?.implementation)
    try {
      return await backend.verify(stored, candidate)
    } catch (error) {
      throw new UnsupportedPasswordHash("the stored argon2 hash could not be read", { err: error as Error })
    }
  }
  const legacy = legacyFormatOf(stored)
  if (legacy) return verifyLegacy(legacy, stored, candidate)
  throw new UnsupportedPasswordHash(`the stored password hash is in no supported format (${describe(stored)})`)
}

/** A hint at a stored value's shape for the error message, never the value itself. */
function describe(stored: string): string {
  const prefix = /^\$[a-z0-9-]{1,16}\$/i.exec(stored)?.[0]
  return prefix ? `begins with ${prefix}` : `${stored.length} characters`
}

/**
 * Whether a stored hash should be replaced at the next successful sign-in: it is not
 * argon2id, or was made with less memory, fewer passes or fewer lanes than `options`
 * (default {@link OWASP_ARGON2ID}).
 *
 * @example
 * ```ts
 * if (ok && needsRehash(user.passwordHash)) await saveHash(user.id, await hashPassword(password))
 * ```
 */
export function needsRehash(stored: string, options?: PasswordOptions): boolean {
  const want = paramsOf(options)
  const have = argon2ParamsOf(stored)
  if (!have || have.variant !== "argon2id" || have.version !== 19) return true
  return have.memoryCost < want.memoryCost || have.timeCost < want.timeCost || have.parallelism < want.parallelism
}

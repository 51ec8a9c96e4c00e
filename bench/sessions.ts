/**
 * Many users, not one: the session cookies the runner sends in rotation.
 *
 * JWT rows get `n` distinct valid session tokens of the bench user, minted here with
 * Portcullis's own token codec (the wire format is Auth.js's, so both libraries open the
 * same cookies). Database rows get the tokens of `n` session rows (`sessionToken` in
 * `shared.ts`), which the servers or the database hold.
 *
 * A `Rotation` hands them out in order and keeps its place across the warm-up and every
 * round of its row, so no cookie comes back before all the others have been sent: a
 * short run cannot replay early cookies into a cache they are still warm in.
 */
import { randomBytes } from "node:crypto"
// Internal modules of the built core: a key ring that keeps its derived key, so minting
// 100,000 tokens costs one HKDF rather than 100,000.
import { encodeWith } from "../packages/core/dist/lib/jwt/codec.js"
import { KeyRing } from "../packages/core/dist/lib/jwt/keys.js"
import { BENCH_USER, SECRET, sessionToken } from "./shared.ts"

export const SESSION_COOKIE = "authjs.session-token"

/** Whether a credentials sign-in's JSON answer (`X-Auth-Return-Redirect`) is a redirect that names no error. */
export function signedIn(body: string): boolean {
  try {
    const { url } = JSON.parse(body) as { url?: unknown }
    return typeof url === "string" && !url.includes("error")
  } catch {
    return false
  }
}

/** `n` distinct JWT session cookies (`name=value`) of the bench user, valid for 30 days. */
export async function mintJwtCookies(n: number): Promise<string[]> {
  const keys = new KeyRing()
  const claims = { name: BENCH_USER.name, email: BENCH_USER.email, picture: null, sub: BENCH_USER.id }
  const out: string[] = new Array(n)
  for (let i = 0; i < n; i++) {
    out[i] = `${SESSION_COOKIE}=${await encodeWith(keys, { token: claims, secret: SECRET, salt: SESSION_COOKIE })}`
  }
  return out
}

/** A run id for database session tokens (distinct per bench run). */
export function newRunId(): string {
  return randomBytes(12).toString("hex")
}

/** The cookies of database sessions `0 … n-1` of `runId`. */
export function databaseCookies(runId: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${SESSION_COOKIE}=${sessionToken(runId, i)}`)
}

/** Hands out `cookies` round-robin; the position survives across warm-up and rounds. */
export class Rotation {
  #next = 0
  #sent = 0
  readonly cookies: readonly string[]
  constructor(cookies: readonly string[]) {
    if (!cookies.length) throw new Error("a rotation needs at least one cookie")
    this.cookies = cookies
  }
  get size(): number {
    return this.cookies.length
  }
  /** How many cookies were handed out so far. */
  get sent(): number {
    return this.#sent
  }
  next(): string {
    const cookie = this.cookies[this.#next]!
    this.#next = this.#next + 1 === this.cookies.length ? 0 : this.#next + 1
    this.#sent++
    return cookie
  }
}

import type { SessionRecord, SessionRegistry } from "../../base-types.js"
import type { JWT } from "../jwt/types.js"
import { randomHex } from "../crypto.js"

/** The claim that carries a JWT session's registry id. */
export const SESSION_ID_CLAIM = "pcl_sid"
/**
 * The claim that names a JWT session without a registry, for step-up re-authentication
 * (`lib/step-up/`): 128 random bits minted at sign-in, so a mark proven in one session
 * serves that session only. With a registry the registry id names the session instead.
 */
export const STEP_UP_ID_CLAIM = "pcl_su"
/** The claim that carries when a JWT session was signed in to (seconds), for `absoluteMaxAge`. */
export const CREATED_CLAIM = "pcl_created"

/** Most sessions whose last good check is remembered; the oldest go first. */
const REMEMBERED_LIMIT = 50_000

/**
 * The JWT session registry of one configuration (`session.registry`), with what it
 * remembers between requests: when each session was last confirmed, and the confirmations
 * in flight. A check within `interval` of the last good one costs no store call — that is
 * the staleness bound a revocation on another instance waits out — and concurrent checks of
 * one session share one call.
 */
export class RegistryState {
  readonly #confirmedUntil = new Map<string, number>()
  readonly #inFlight = new Map<string, Promise<boolean>>()

  constructor(
    /** The app's registry, its calls bounded by `adapterTimeout` and failing as `AdapterError`. */
    readonly store: SessionRegistry,
    /** Milliseconds a confirmation is trusted. */
    readonly intervalMs: number,
  ) {}

  /** A new session id: 128 random bits, so nobody can name a session they did not see. */
  newId(): string {
    return randomHex(16)
  }

  /**
   * Whether the session `id` of `userId` is still registered: `true` at once from the last
   * confirmation when it is younger than the interval, else one `touch` (which also records
   * it as seen and pushes its expiry to `now + maxAgeMs`).
   * A store failure rejects (an `AdapterError`): the caller answers 503, not "signed out"
   * and not "still valid". With `fresh`, the registry is asked whatever the last confirmation:
   * for a sensitive action, a revocation made on another instance must count at once.
   */
  confirm(userId: string, id: string, now: number, maxAgeMs: number, fresh = false): true | Promise<boolean> {
    const key = `${userId}\u0000${id}`
    const until = this.#confirmedUntil.get(key)
    // The hot path: a session confirmed within the interval costs one map read, no promise.
    if (!fresh && until !== undefined && until > now) return true
    let pending = this.#inFlight.get(key)
    if (!pending) {
      pending = (async () => {
        try {
          const found = await this.store.touch(userId, id, new Date(now), new Date(now + maxAgeMs))
          if (found) this.#remember(key, now + this.intervalMs)
          else this.#confirmedUntil.delete(key)
          return found
        } finally {
          this.#inFlight.delete(key)
        }
      })()
      this.#inFlight.set(key, pending)
    }
    return pending
  }

  /** A revocation made here is seen here at once (other instances wait out the interval). */
  forget(userId: string, ids: Iterable<string>): void {
    for (const id of ids) this.#confirmedUntil.delete(`${userId}\u0000${id}`)
  }

  #remember(key: string, until: number): void {
    this.#confirmedUntil.delete(key)
    if (this.#confirmedUntil.size >= REMEMBERED_LIMIT) this.#confirmedUntil.delete(this.#confirmedUntil.keys().next().value!)
    this.#confirmedUntil.set(key, until)
  }
}

/** The registry id a token claims, when it is a well-formed one. */
export function sessionIdOf(token: JWT): string | undefined {
  const id = token[SESSION_ID_CLAIM]
  return isSessionId(id) ? id : undefined
}

/** The id step-up marks of a JWT session are kept under: its registry id, else its `pcl_su` claim. */
export function stepUpIdOf(token: JWT): string | undefined {
  const id = token[SESSION_ID_CLAIM] ?? token[STEP_UP_ID_CLAIM]
  return isSessionId(id) ? id : undefined
}

/** Both kinds of session id (registry ids, listed database ids) are 32 lowercase hex characters; anything else names no session. */
export function isSessionId(id: unknown): id is string {
  return typeof id === "string" && /^[0-9a-f]{32}$/.test(id)
}

/** When the session of `token` began (ms): its `pcl_created` claim, else its `iat` (a token from before the option). */
export function createdAtOf(token: JWT): number | undefined {
  const created = token[CREATED_CLAIM]
  if (typeof created === "number" && Number.isFinite(created)) return created * 1000
  return typeof token.iat === "number" ? token.iat * 1000 : undefined
}

export type { SessionRecord }

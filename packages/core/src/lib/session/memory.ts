import type { AdapterSession, AdapterUser } from "../../adapters.js"
import type { JWT } from "../jwt/types.js"
import { VerifiedTokenCache } from "./token-cache.js"

/** A verified session token; `answer` is filled by `SessionAnswers` (`session/answers.ts`). */
export interface RememberedToken {
  payload: JWT
  /** Opened with an older secret: re-issued under the newest on the next check. */
  rotated: boolean
  /** The session check's JSON body for this token, when nothing but the token decides it. */
  answer?: string
}

/**
 * What one configuration's session strategies remember between requests — only for speed,
 * never for correctness: with it empty every answer is the same, only slower. It lives on
 * the resolved configuration (one per `Auth` configuration object), never in a module, so
 * two configurations in one process — two tenants, two adapters — can never answer each
 * other's checks.
 */
export class SessionMemory {
  /** JWT cookies already decrypted, until their `exp` (bounded). */
  readonly verifiedTokens = new VerifiedTokenCache<RememberedToken>()
  /** Database: `getSessionAndUser` queries in flight, shared by concurrent checks of one token. */
  readonly lookups = new Map<string, Promise<{ session: AdapterSession; user: AdapterUser } | null>>()
  /** Database: `updateSession` writes in flight, shared by concurrent checks of one token. */
  readonly extending = new Map<string, Promise<AdapterSession | null>>()
  /** Database: extensions that just landed, so checks that read the row before them don't write again. */
  readonly recentlyExtended = new Map<string, { expires: Date; until: number }>()
  /**
   * JWT: per session-cookie name (the key salt), the verified-token cache's scope and the
   * newest secret's `kid`, worked out once: building the scope string and awaiting the key
   * ring on every check cost more than the cache lookup itself. Salts come from the
   * configuration (one per cookie name, two at most), never from a request.
   */
  readonly #salts = new Map<string, { scope: string; primaryKid?: string }>()

  /** The cache scope of `salt` under `secrets` (this configuration's, which never change). */
  saltState(salt: string, secrets: readonly string[]): { scope: string; primaryKid?: string } {
    let state = this.#salts.get(salt)
    if (!state) {
      // JSON, not a separator: a salt or secret containing the separator could make two
      // different configurations share one scope (as the key ring's cache keys once could).
      state = { scope: JSON.stringify([salt, secrets]) }
      this.#salts.set(salt, state)
    }
    return state
  }
}

import type { ResolvedConfig } from "../config/resolved.js"
import { noopEvent } from "../config/noop-event.js"
import { cookieValue } from "../cookies.js"
import type { AdapterSession, AdapterUser } from "../../adapters.js"
import type { LookedUp, Opening } from "../context.js"
import { openUncachedWith } from "./jwt.js"
import type { RememberedToken } from "./memory.js"
import { store } from "../config/stores.js"
import { UNVERIFIED_CLAIM } from "./unverified-mark.js"
import { isDue, lookup, storageKey } from "./database.js"

/**
 * The session lane: answers to `GET /session` worked out without building a request
 * context, for the checks most requests are. Each answer is the full check's answer for
 * the same request, byte for byte — `test/session/answers.test.ts` compares both on the
 * same requests — and anything the lane cannot answer alone goes the full way.
 */
export type { LookedUp, Opening }

export interface SessionAnswers {
  /**
   * The JSON body answering a session check that carries `cookieHeader` over a connection
   * that is `secure` (which names the cookie); `undefined` when the full check must run;
   * or what the lane began — the token's decryption, the row's reading — for the full check
   * to continue from (its outcome, a refusal or a store failure included, is the full
   * check's to judge). Never rejects.
   */
  answer(cookieHeader: string | null, secure: boolean): string | LookedUp | Opening | undefined | Promise<string | LookedUp | Opening | undefined>
}

/**
 * The session lane of `config`, or `undefined` when its checks run app code or need more
 * than the cookie and the row: a `session` callback or event; for JWT sessions also a `jwt`
 * callback, the app's own decoder, a session registry or provider-token refresh; and
 * `absoluteMaxAge` for both.
 */
export function sessionAnswers(config: ResolvedConfig): SessionAnswers | undefined {
  const { session, callbacks, events } = config
  if (callbacks.session || events.session !== noopEvent || session.absoluteMaxAge !== undefined) return undefined
  if (session.strategy === "database") return new DatabaseSessionAnswers(config)
  const tokenOnly = config.jwt.builtin && !config.customJwtCallback && config.sessionRegistry === undefined && !config.tokenRefresh.jwt
  return tokenOnly ? new JwtSessionAnswers(config) : undefined
}

/**
 * JWT sessions: whole answers that nothing but the session token decides.
 *
 * Under a configuration with JWT sessions, the built-in codec, and no code of the app or
 * of Portcullis that looks at the token on a check — no `jwt` or `session` callback, no
 * `session` event, no session registry or `absoluteMaxAge`, no provider-token refresh — the
 * answer to `GET /session` with a token that is already verified (in the verified-token
 * cache), fresh (younger than `updateAge`: no re-issue), not opened with a rotated-out
 * secret and not marked unverified (T67) is a function of the token alone:
 * `{ user: { name, email, image }, expires: iat + maxAge }`, with no cookie to set. It is
 * worked out once and kept with the cached token, so the check that most requests are
 * costs a cookie read and a map lookup (`docs/benchmarks.md`).
 *
 * Anything else is `undefined`, and the request takes the full path (`jwtStrategy.read`),
 * which gives the same answer for these tokens and handles every other case.
 */
class JwtSessionAnswers implements SessionAnswers {
  readonly #config: ResolvedConfig
  readonly #cookies: ({ name: string; chunkPrefix: string; scope: string } | undefined)[] = []

  constructor(config: ResolvedConfig) {
    this.#config = config
  }

  /**
   * The JSON body answering a session check that carries `cookieHeader` over a connection
   * that is `secure` (which names the cookie), or `undefined` when the full check must run.
   */
  answer(cookieHeader: string | null, secure: boolean): string | Opening | undefined | Promise<string | Opening> {
    // No cookie at all: signed out, as the full check answers.
    if (cookieHeader === null) return "null"
    const cookie = this.#cookie(secure)
    // A chunked session (`name.0`, `name.1`, …) is assembled by the full check; so is
    // anything that merely looks like one.
    if (cookieHeader.includes(cookie.chunkPrefix)) return undefined
    const raw = cookieValue(cookieHeader, cookie.name)
    if (raw === undefined) return "null"
    if (raw === "") return undefined
    const config = this.#config
    const remembered = config.sessionMemory.verifiedTokens.peek(cookie.scope, raw)
    if (remembered) return this.#answerFor(remembered)
    // Not remembered: decrypted here (and remembered), and answered if it qualifies;
    // otherwise the full check continues from this decryption, refusals included.
    const opening = openUncachedWith(config, cookie.name, raw, true)
    const handoff: Opening = { raw, opening }
    return opening.then(
      (opened) => (opened && this.#answerFor(opened)) ?? handoff,
      () => handoff,
    )
  }

  /**
   * The answer for a verified token, when the token alone decides it; else `undefined`,
   * also for a token the answer cannot be built from (an `iat` past the range of a `Date`):
   * the full check then judges it, as it judges every token it cannot use.
   */
  #answerFor(remembered: RememberedToken): string | undefined {
    const config = this.#config
    if (remembered.rotated) return undefined
    const token = remembered.payload
    // Past `updateAge` the full check re-issues the cookie; an unverified user's token is
    // confirmed with the adapter on every check.
    if (typeof token.iat !== "number" || Math.floor(Date.now() / 1000) - token.iat >= config.session.updateAge) return undefined
    if (remembered.answer !== undefined) return remembered.answer
    if (token[UNVERIFIED_CLAIM] !== undefined) return undefined
    // As the full check builds it (`jwtStrategy.read`, a token left unchanged). The token is
    // the cache's own and never changes (nothing in this configuration can change it).
    try {
      remembered.answer = JSON.stringify({
        user: { name: token.name, email: token.email, image: token.picture },
        expires: new Date(token.iat * 1000 + config.session.maxAge * 1000).toISOString(),
      })
    } catch {
      // No answer then: `remembered.answer` stays undefined.
    }
    return remembered.answer
  }

  /** The session cookie's name, its chunks' prefix and its cache scope, per cookie variant. */
  #cookie(secure: boolean): { name: string; chunkPrefix: string; scope: string } {
    const variant = secure ? 1 : 0
    let cookie = this.#cookies[variant]
    if (!cookie) {
      const config = this.#config
      const name = config.cookies(secure).sessionToken.name
      cookie = { name, chunkPrefix: `${name}.`, scope: config.sessionMemory.saltState(name, config.secrets).scope }
      this.#cookies[variant] = cookie
    }
    return cookie
  }
}

/**
 * Database sessions: the row is read on every check (through the shared lookup, so
 * concurrent checks of one session share one query), and a live row that is not due for
 * extension answers `{ user: { name, email, image }, expires }` as `databaseStrategy.read`
 * builds it. Anything else — no row, an expired or due one, the store's failure — is handed
 * to the full check with the reading itself, so the store is asked once either way.
 */
class DatabaseSessionAnswers implements SessionAnswers {
  readonly #config: ResolvedConfig
  readonly #names: (string | undefined)[] = []

  constructor(config: ResolvedConfig) {
    this.#config = config
  }

  answer(cookieHeader: string | null, secure: boolean): string | LookedUp | undefined | Promise<string | LookedUp | undefined> {
    if (cookieHeader === null) return "null"
    const name = (this.#names[secure ? 1 : 0] ??= this.#config.cookies(secure).sessionToken.name)
    const sessionToken = cookieValue(cookieHeader, name)
    if (!sessionToken) return "null"
    const stored = storageKey(this.#config, sessionToken)
    return typeof stored === "string" ? this.#read(stored) : stored.then((key) => this.#read(key), () => undefined)
  }

  #read(key: string): Promise<string | LookedUp> {
    const config = this.#config
    // Only read here, never changed: no copy of a row shared with concurrent checks. The
    // full check continues from this reading whatever it holds — a row, none, or the
    // store's failure (its 503) — so the store is asked once.
    const reading = lookup(config, store(config.stores, "database"), key, false)
    const handoff: LookedUp = { key, reading }
    return reading.then((found) => (found && this.#answerFor(found)) ?? handoff, () => handoff)
  }

  /** The answer for a live row not due for extension; else `undefined`, also for a row in a shape the answer cannot be built from (no valid `expires`, no user). */
  #answerFor({ session, user }: { session: AdapterSession; user: AdapterUser }): string | undefined {
    let answer: string | undefined
    try {
      const now = Date.now()
      if (session.expires.getTime() > now && !isDue(this.#config, session, now)) {
        answer = JSON.stringify({ user: { name: user.name, email: user.email, image: user.image }, expires: session.expires.toISOString() })
      }
    } catch {
      // No answer then: the full check judges the row.
    }
    return answer
  }
}

import type { ResolvedConfig } from "../config/resolve.js"
import { noopEvent } from "../config/resolve.js"
import { cookieValue } from "../cookies.js"
import { UNVERIFIED_CLAIM } from "./unverified-mark.js"

/**
 * Whole answers to session checks that nothing but the session token decides.
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
 * which gives the same answer for these tokens — `test/session/answers.test.ts` compares
 * both on the same requests — and handles every other case.
 */
export class SessionAnswers {
  readonly #config: ResolvedConfig
  readonly #cookies: ({ name: string; chunkPrefix: string; scope: string } | undefined)[] = []

  private constructor(config: ResolvedConfig) {
    this.#config = config
  }

  /** The answers of `config`, or `undefined` when its checks depend on more than the token. */
  static of(config: ResolvedConfig): SessionAnswers | undefined {
    const { session, callbacks, events } = config
    const tokenOnly =
      session.strategy === "jwt" &&
      config.jwt.builtin &&
      !config.customJwtCallback &&
      !callbacks.session &&
      events.session === noopEvent &&
      config.sessionRegistry === undefined &&
      session.absoluteMaxAge === undefined &&
      !config.tokenRefresh.jwt
    return tokenOnly ? new SessionAnswers(config) : undefined
  }

  /**
   * The JSON body answering a session check that carries `cookieHeader` over a connection
   * that is `secure` (which names the cookie), or `undefined` when the full check must run.
   */
  answer(cookieHeader: string | null, secure: boolean): string | undefined {
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
    if (!remembered || remembered.rotated) return undefined
    const token = remembered.payload
    // Past `updateAge` the full check re-issues the cookie; an unverified user's token is
    // confirmed with the adapter on every check.
    if (typeof token.iat !== "number" || Math.floor(Date.now() / 1000) - token.iat >= config.session.updateAge) return undefined
    if (remembered.answer !== undefined) return remembered.answer
    if (token[UNVERIFIED_CLAIM] !== undefined) return undefined
    // As the full check builds it (`jwtStrategy.read`, a token left unchanged). The token is
    // the cache's own and never changes (nothing in this configuration can change it).
    remembered.answer = JSON.stringify({
      user: { name: token.name, email: token.email, image: token.picture },
      expires: new Date(token.iat * 1000 + config.session.maxAge * 1000).toISOString(),
    })
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

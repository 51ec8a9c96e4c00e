import { AdapterError, JWTSessionError } from "../../errors.js"
import type { JWT } from "../jwt/types.js"
import type { Cookie, ResponseInternal, Session } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { clearChunked, hasChunked, readChunked, writeChunked } from "../cookies.js"
import { noopEvent } from "../config/resolve.js"
import { openWith } from "../jwt/codec.js"
import type { SessionStrategy } from "./strategy.js"
import { RejectedByDecode, unreadableKind } from "./unreadable.js"
import { checkUnverifiedMark, UNVERIFIED_CLAIM, unverifiedMark } from "./unverified-mark.js"

/**
 * Sessions as encrypted JWT cookies.
 *
 * A session younger than `updateAge` is answered without re-encrypting (Auth.js
 * re-encrypts on every check, which is most of its cost); and a cookie already decrypted
 * is remembered, bounded and until its `exp`, so a hot session check costs no crypto.
 */
export const jwtStrategy: SessionStrategy = {
  async read(ctx, update) {
    const { config } = ctx
    const name = ctx.cookieOptions.sessionToken.name
    const raw = readChunked(ctx.cookies, name)
    if (!raw) {
      // Pieces that do not assemble (`.0` and `.2` without `.1`) are a session nobody can
      // read: delete every piece, or the browser sends them on every request.
      if (!hasChunked(ctx.cookies, name)) return { body: null }
      config.logLimiter.warn("session-cookie-unreadable", "malformed", { cookie: name })
      return { body: null, cookies: clearSession(ctx) }
    }
    // Without app code that sees the token (jwt or session callback, session event), nothing
    // can change it here: a remembered token is used as it is, not cloned first.
    const shared = !config.customJwtCallback && !config.callbacks.session && config.events.session === noopEvent
    let opened: { payload: JWT; rotated: boolean }
    try {
      // A remembered cookie is answered without a promise in between (most checks).
      const result = rememberedToken(ctx, raw, shared) ?? (await openUncached(ctx, raw, shared))
      if (!result) throw new RejectedByDecode()
      opened = result
    } catch (error) {
      return unreadable(ctx, error)
    }
    try {
      const { payload, rotated } = opened
      // T67: a session issued while its user was unverified is confirmed with the adapter.
      // (Unmarked tokens answer at once: awaited only when there is something to wait for.)
      const checked = checkUnverifiedMark(ctx, payload)
      const mark = typeof checked === "string" ? checked : await checked
      if (mark === "revoked") return { body: null, cookies: clearSession(ctx) }
      // Only an app's own jwt callback can change the token between checks; without one,
      // skip serialising it twice just to find out nothing changed.
      const custom = config.customJwtCallback
      const before = update || !custom ? undefined : JSON.stringify(payload)
      const answered = config.callbacks.jwt({
        token: payload,
        ...(update ? { session: update.data, trigger: "update" as const } : {}),
      } as Parameters<typeof config.callbacks.jwt>[0])
      let token = isThenable(answered) ? await answered : answered
      if (token === null) return { body: null, cookies: clearSession(ctx) }

      const now = Math.floor(Date.now() / 1000)
      const age = now - (typeof token.iat === "number" ? token.iat : 0)
      const stale = age >= config.session.updateAge
      // A user verified in place no longer needs the mark: re-issue without it. Otherwise
      // the mark outlives a jwt callback that rebuilds the token.
      const unmark = mark === "verified"
      if (unmark) {
        // A copy: the token may be the remembered one (see `shared`).
        token = { ...token }
        delete token[UNVERIFIED_CLAIM]
      } else if (payload[UNVERIFIED_CLAIM] !== undefined && token[UNVERIFIED_CLAIM] !== payload[UNVERIFIED_CLAIM]) {
        token[UNVERIFIED_CLAIM] = payload[UNVERIFIED_CLAIM]
      }
      const changed = update !== undefined || rotated || stale || unmark || (custom && JSON.stringify(token) !== before)
      let cookies: Cookie[] = []
      let expiresAt: number
      if (changed) {
        const { iat: _i, exp: _e, jti: _j, ...claims } = token
        cookies = await writeSession(ctx, claims)
        expiresAt = Date.now() + config.session.maxAge * 1000
      } else {
        expiresAt = (typeof token.iat === "number" ? token.iat : now) * 1000 + config.session.maxAge * 1000
      }
      const defaultSession: Session = {
        // As Auth.js: a claim that is null stays null in the answer; an absent one is left out.
        user: { name: token.name, email: token.email, image: token.picture },
        expires: new Date(expiresAt).toISOString(),
      }
      const session = config.callbacks.session
        ? await config.callbacks.session({ session: defaultSession, token, ...(update ? { newSession: update.data, trigger: "update" as const } : {}) } as any)
        : defaultSession
      if (config.events.session !== noopEvent) await config.events.session({ session, token })
      return { body: session, cookies }
    } catch (error) {
      // The store behind a marked token failed: an outage, not a bad token (the cookie stays).
      if (error instanceof AdapterError) throw error
      config.logger.error(new JWTSessionError("The session token could not be used", error as Error))
      return { body: null, cookies: clearSession(ctx) }
    }
  },

  async create(ctx, result) {
    const { user, account, profile, isNewUser } = result
    const { config } = ctx
    const defaults: JWT = { name: user.name, email: user.email, picture: user.image, sub: user.id?.toString() }
    const token = await config.callbacks.jwt({
      token: defaults,
      user,
      account,
      profile,
      isNewUser,
      trigger: isNewUser ? "signUp" : "signIn",
    })
    if (token === null) return clearSession(ctx)
    const { iat: _i, exp: _e, jti: _j, ...claims } = token
    // Set after the callback, so the app's callback cannot leave it out by accident.
    const mark = unverifiedMark(ctx, result)
    if (mark !== undefined) claims[UNVERIFIED_CLAIM] = mark
    return writeSession(ctx, claims)
  },

  async destroy(ctx) {
    const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
    if (raw) {
      const opened = await openToken(ctx, raw).catch(() => undefined)
      // As Auth.js: the event fires when the decoder did not fail. Its built-in decoder
      // throws on a token it cannot open (ours answers null), so an unreadable cookie ended
      // no session and fires nothing; an app decoder answering null fires `{ token: null }`.
      if (opened || (opened === null && !ctx.config.jwt.builtin)) await ctx.config.events.signOut({ token: opened?.payload ?? null })
    }
    return clearSession(ctx)
  },

  async currentUserId(ctx) {
    const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
    if (!raw) return null
    const opened = await openToken(ctx, raw).catch(() => null)
    if (!opened || typeof opened.payload.sub !== "string") return null
    // A revoked pre-verification session must not link anything to its (deleted) user.
    const mark = await checkUnverifiedMark(ctx, opened.payload)
    return mark === "valid" || mark === "verified" ? opened.payload.sub : null
  },
}

/**
 * A session cookie that does not open: deleted, and — when it is the cookie's fault —
 * a rate-limited warning, not an error. Anyone can send garbage cookies, and a rotated
 * secret or an expired session produces them too; none of it is an error of the app.
 * A failure that is not the cookie's (a custom decoder crashing) stays an error.
 */
function unreadable(ctx: RequestContext, error: unknown): ResponseInternal {
  const { config } = ctx
  const name = ctx.cookieOptions.sessionToken.name
  const kind = unreadableKind(error)
  if (kind) config.logLimiter.warn("session-cookie-unreadable", kind, { cookie: name })
  else config.logger.error(new JWTSessionError("The session token could not be opened", error as Error))
  return { body: null, cookies: clearSession(ctx) }
}

/**
 * The remembered token of a session cookie decrypted before (built-in codec only), or
 * undefined. With `shared`, the cache's own object, which the caller must not change;
 * otherwise a clone.
 */
function rememberedToken(ctx: RequestContext, raw: string, shared: boolean): { payload: JWT; rotated: boolean } | undefined {
  const { config } = ctx
  if (!config.jwt.builtin) return undefined
  const { scope } = config.sessionMemory.saltState(ctx.cookieOptions.sessionToken.name, config.secrets)
  const cache = config.sessionMemory.verifiedTokens
  return shared ? cache.peek(scope, raw) : cache.get(scope, raw)
}

/** A callback's answer that must be awaited (a promise or another thenable). */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === "function"
}

/**
 * Opens a session cookie: from the verified-token cache, or decrypted (and remembered).
 * With `shared`, a remembered token comes back as the cache's own object, which the caller
 * must not change; otherwise as a clone.
 */
async function openToken(ctx: RequestContext, raw: string, shared = false): Promise<{ payload: JWT; rotated: boolean } | null> {
  return rememberedToken(ctx, raw, shared) ?? openUncached(ctx, raw, shared)
}

/**
 * Opens a session cookie that is not remembered: the app's own decoder, or the built-in
 * codec, whose verified tokens are remembered until their `exp`.
 */
async function openUncached(ctx: RequestContext, raw: string, shared: boolean): Promise<{ payload: JWT; rotated: boolean } | null> {
  const { config } = ctx
  const salt = ctx.cookieOptions.sessionToken.name
  if (!config.jwt.builtin) {
    const secret = config.secrets.length === 1 ? config.secrets[0]! : config.secrets
    const payload = await config.jwt.decode({ token: raw, secret, salt })
    return payload ? { payload, rotated: false } : null
  }
  const cache = config.sessionMemory.verifiedTokens
  const state = config.sessionMemory.saltState(salt, config.secrets)
  const opened = await openWith<JWT>(config.keys, { token: raw, secret: config.secrets, salt })
  if (!opened?.payload) return null
  const { payload } = opened
  state.primaryKid ??= (await config.keys.key(config.secrets[0]!, salt)).kid
  // A token opened by an older secret is re-issued under the newest one (rotation).
  const rotated = opened.kid !== state.primaryKid
  const entry = { payload, rotated }
  // The cache keeps its own copy, and this freshly decrypted payload is the caller's alone;
  // a `shared` caller changes nothing, so one object serves both.
  if (typeof payload.exp === "number") cache.set(state.scope, raw, entry, payload.exp * 1000, !shared)
  return entry
}

async function writeSession(ctx: RequestContext, claims: JWT): Promise<Cookie[]> {
  const { config } = ctx
  const { name, options } = ctx.cookieOptions.sessionToken
  const secret = config.secrets.length === 1 ? config.secrets[0]! : config.secrets
  const value = await config.jwt.encode({ token: claims, secret, salt: name, maxAge: config.jwt.maxAge })
  const expires = new Date(Date.now() + config.session.maxAge * 1000)
  return writeChunked(ctx.cookies, name, value, { ...options, expires })
}

function clearSession(ctx: RequestContext): Cookie[] {
  const { name, options } = ctx.cookieOptions.sessionToken
  return clearChunked(ctx.cookies, name, options)
}

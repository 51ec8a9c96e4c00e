import { AdapterError, JWTSessionError, ServiceUnavailable, SignOutError } from "../../errors.js"
import type { JWT } from "../jwt/types.js"
import type { Cookie, ResponseInternal, Session } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { clearChunked, hasChunked, readChunked, writeChunked } from "../cookies.js"
import { noopEvent } from "../config/noop-event.js"
import { audit } from "../audit/index.js"
import { openWith } from "../jwt/codec.js"
import type { SessionStrategy } from "./strategy.js"
import { RejectedByDecode, unreadableKind } from "./unreadable.js"
import { checkUnverifiedMark, CONFIRMED_CLAIM, confirmationDue, UNVERIFIED_CLAIM, unverifiedMark } from "./unverified-mark.js"
import { clientInfo } from "./client-info.js"
import { CREATED_CLAIM, createdAtOf, SESSION_ID_CLAIM, sessionIdOf, STEP_UP_ID_CLAIM } from "./registry.js"
import { randomHex } from "../crypto.js"
import { heldFromAccount, heldIn, heldIsCurrent, rotateHeld, TOKENS_CLAIM, type HeldTokens } from "../tokens/jwt.js"
import { ReauthRequired } from "../../errors.js"

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
      // The session lane may have begun decrypting this very cookie (`ctx.opened`).
      const result = rememberedToken(ctx, raw, shared) ?? (await (ctx.opened?.raw === raw ? ctx.opened.opening : openUncached(ctx, raw, shared)))
      if (!result) throw new RejectedByDecode()
      opened = result
    } catch (error) {
      return unreadable(ctx, error)
    }
    try {
      const { rotated } = opened
      let { payload } = opened
      // Off by default: then the hot path pays one property read for each.
      const managed = config.sessionRegistry !== undefined || config.session.absoluteMaxAge !== undefined
      if (managed) {
        // Synchronous `true` within the check interval: no promise on the hot path.
        const valid = stillValid(ctx, payload)
        // Stryker disable next-line ConditionalExpression: `false` awaits the boolean too, the same answer a promise hop later (`true` does not compile)
        const registered: boolean = typeof valid === "boolean" ? valid : await valid
        if (!registered) return { body: null, cookies: clearSession(ctx) }
      }
      // T67: a session issued while its user was unverified is confirmed with the adapter.
      // (Unmarked tokens answer at once: awaited only when there is something to wait for.)
      const checked = checkUnverifiedMark(ctx, payload)
      // Stryker disable next-line ConditionalExpression: `false` awaits the string too, the same answer a promise hop later (`true` does not compile)
      const mark = typeof checked === "string" ? checked : await checked
      if (mark === "revoked") return { body: null, cookies: clearSession(ctx) }
      // A configuration without the adapter, long after the last confirmation: not a session
      // here, but not a sign-out either — the cookie stays for a check that can confirm it.
      if (mark === "stale") {
        config.logger.debug("An unverified user's session was not confirmed within session.unverifiedMaxAge; answered as no session, cookie kept")
        return { body: null }
      }
      // tokenRefresh.jwt: provider tokens about to expire are rotated before the callback sees them.
      // Only with the option on: off, the hot path takes no promise hop for it.
      const held = config.tokenRefresh.jwt ? await refreshedForSession(ctx, payload) : undefined
      if (held) payload = { ...payload, [TOKENS_CLAIM]: held }
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
      const marked = payload[UNVERIFIED_CLAIM] !== undefined
      // Confirmed by the adapter just now: the edge's clock restarts whenever this cookie is
      // written, and it is written for that alone once half the edge's limit has passed.
      const confirmed = marked && mark === "valid"
      if (unmark) {
        // A copy: the token may be the remembered one (see `shared`).
        token = { ...token }
        delete token[UNVERIFIED_CLAIM]
        delete token[CONFIRMED_CLAIM]
      } else if (marked) {
        // Carried over unchanged otherwise: a configuration that could not confirm (the edge)
        // re-issues the token with the old confirmation, so its limit is not extended there.
        // (When the token is the remembered one, these write back the values it holds.)
        token[UNVERIFIED_CLAIM] = payload[UNVERIFIED_CLAIM]
        if (payload[CONFIRMED_CLAIM] === undefined) delete token[CONFIRMED_CLAIM]
        else token[CONFIRMED_CLAIM] = payload[CONFIRMED_CLAIM]
      }
      // Step-up marks are kept under this id (lib/step-up/): a jwt callback that rebuilds
      // the token must not drop it, or the user would re-authenticate for nothing.
      if (payload[STEP_UP_ID_CLAIM] !== undefined && token[STEP_UP_ID_CLAIM] !== payload[STEP_UP_ID_CLAIM]) token = { ...token, [STEP_UP_ID_CLAIM]: payload[STEP_UP_ID_CLAIM] }
      // The session's id and start are Portcullis's, not the app's: a jwt callback that
      // rebuilds the token keeps them.
      if (managed) {
        if (token[SESSION_ID_CLAIM] !== payload[SESSION_ID_CLAIM]) token[SESSION_ID_CLAIM] = payload[SESSION_ID_CLAIM]
        if (token[CREATED_CLAIM] !== payload[CREATED_CLAIM]) token[CREATED_CLAIM] = payload[CREATED_CLAIM]
      }
      // Like the mark: a callback that rebuilds the token must not drop the rotated tokens.
      if (held && token[TOKENS_CLAIM] !== held) token = { ...token, [TOKENS_CLAIM]: held }
      const changed = update !== undefined || rotated || stale || unmark || !!held || (confirmed && confirmationDue(ctx, payload, now)) || (custom && JSON.stringify(token) !== before)
      let cookies: Cookie[] = []
      let expiresAt: number
      if (changed) {
        const { iat: _i, exp: _e, jti: _j, ...claims } = token
        if (confirmed) claims[CONFIRMED_CLAIM] = now
        // A token from before `absoluteMaxAge` was set starts counting at its `iat`.
        if (managed && claims[CREATED_CLAIM] === undefined) {
          const created = createdAtOf(payload)
          if (created !== undefined) claims[CREATED_CLAIM] = Math.floor(created / 1000)
        }
        cookies = await writeSession(ctx, claims)
        expiresAt = Date.now() + config.session.maxAge * 1000
      } else {
        expiresAt = (typeof token.iat === "number" ? token.iat : now) * 1000 + config.session.maxAge * 1000
      }
      // The session ends at its absolute limit however recently it was extended.
      if (managed && config.session.absoluteMaxAge !== undefined) {
        const created = createdAtOf(token)
        if (created !== undefined) expiresAt = Math.min(expiresAt, created + config.session.absoluteMaxAge * 1000)
      }
      const defaultSession: Session = {
        // As Auth.js: a claim that is null stays null in the answer; an absent one is left out.
        user: { name: token.name, email: token.email, image: token.picture },
        expires: new Date(expiresAt).toISOString(),
      }
      const session = config.callbacks.session
        ? await config.callbacks.session({ session: defaultSession, token, ...(update ? { newSession: update.data, trigger: "update" as const } : {}) } as any)
        : defaultSession
      // Stryker disable next-line ConditionalExpression: `true` awaits noopEvent, which does nothing; the test spares the hot path that promise
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
    const registry = config.sessionRegistry
    // As database sessions do: the session this browser arrived with ends with the new
    // sign-in, so a copy of its cookie stops working and the list shows no ghost. Best effort.
    if (registry) await endPrevious(ctx, registry)
    if (registry || config.session.absoluteMaxAge !== undefined) {
      const now = Date.now()
      claims[CREATED_CLAIM] = Math.floor(now / 1000)
      // Recorded before the cookie exists, so no token is ever out that the registry does
      // not know; a registry that is down fails the sign-in (503), it does not skip this.
      // Sessions are registered per user: a token without `sub` (a jwt callback that dropped
      // it) could never be found again, so it is refused here rather than at every check.
      if (registry && typeof claims.sub !== "string") throw new JWTSessionError("session.registry needs the token's sub (the user id); the jwt callback returned a token without one")
      if (registry && typeof claims.sub === "string") {
        const id = registry.newId()
        await registry.store.add({
          id,
          userId: claims.sub,
          createdAt: new Date(now),
          lastSeenAt: new Date(now),
          expires: new Date(now + config.session.maxAge * 1000),
          ...clientInfo(ctx),
        })
        claims[SESSION_ID_CLAIM] = id
      }
    }
    // Without a registry id, the session gets its own for step-up marks (lib/step-up/).
    if (claims[SESSION_ID_CLAIM] === undefined) claims[STEP_UP_ID_CLAIM] = randomHex(16)
    const held = heldFromAccount(config, account)
    if (held) claims[TOKENS_CLAIM] = held
    return writeSession(ctx, claims)
  },

  async destroy(ctx) {
    const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
    if (raw) {
      const opened = await openToken(ctx, raw).catch(() => undefined)
      // As Auth.js: the event fires when the decoder did not fail. Its built-in decoder
      // throws on a token it cannot open (ours answers null), so an unreadable cookie ended
      // no session and fires nothing; an app decoder answering null fires `{ token: null }`.
      // With a registry, signing out removes the session there too, so a copy of the cookie
      // stops working as well. When that fails the cookie is kept (as database sessions do):
      // reporting a sign-out that did not happen would leave the copy valid.
      const registry = ctx.config.sessionRegistry
      const id = opened && sessionIdOf(opened.payload)
      if (registry && id && typeof opened.payload.sub === "string") {
        const userId = opened.payload.sub
        try {
          await registry.store.remove(userId, [id])
        } catch (error) {
          throw new ServiceUnavailable(
            "The session could not be removed from the registry; it is still valid",
            // Stryker disable next-line StringLiteral: never seen: AuthError's constructor spreads this error's own cause over it, so the logged cause is the store's error (database.ts has the same)
            new SignOutError("registry.remove failed", error as Error),
          )
        }
        registry.forget(userId, [id])
      }
      if (opened || (opened === null && !ctx.config.jwt.builtin)) {
        await ctx.config.events.signOut({ token: opened?.payload ?? null })
        const userId = opened?.payload.sub
        await audit(ctx, { type: "signOut", outcome: "success", ...(typeof userId === "string" && { userId }) })
      }
    }
    return clearSession(ctx)
  },

  async currentUserId(ctx) {
    const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
    if (!raw) return null
    // Stryker disable next-line ArrowFunction: `() => undefined` is as falsy as null to the check below
    const opened = await openToken(ctx, raw).catch(() => null)
    if (!opened || typeof opened.payload.sub !== "string") return null
    if ((ctx.config.sessionRegistry || ctx.config.session.absoluteMaxAge !== undefined) && !(await stillValid(ctx, opened.payload))) return null
    // A revoked pre-verification session must not link anything to its (deleted) user.
    const mark = await checkUnverifiedMark(ctx, opened.payload)
    return mark === "valid" || mark === "verified" ? opened.payload.sub : null
  },
}

/** Removes the registered session of the request's own cookie, if any; failures only cost the cleanup. */
async function endPrevious(ctx: RequestContext, registry: NonNullable<RequestContext["config"]["sessionRegistry"]>): Promise<void> {
  const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
  if (!raw) return
  // Stryker disable next-line ArrowFunction: `() => undefined` is as falsy as null to the check below
  const opened = await openToken(ctx, raw).catch(() => null)
  const id = opened && sessionIdOf(opened.payload)
  const userId = opened?.payload.sub
  if (!id || typeof userId !== "string") return
  try {
    await registry.store.remove(userId, [id])
    registry.forget(userId, [id])
  } catch {
    // The old session then ends at its expiry, as it did before; the sign-in goes on.
  }
}

/**
 * Session management's checks of an opened token: older than `absoluteMaxAge` since sign-in
 * (T42), or — with a registry — no longer registered (revoked, signed out everywhere). The
 * registry is asked at most once per `revocationCheckInterval` per session (every time with
 * `fresh`: the step-up gate's check before a sensitive action); a registry
 * failure rejects with an `AdapterError` (503, cookie kept): accepting a token that may be
 * revoked, or signing everyone out during an outage, would both be worse.
 */
export function stillValid(ctx: RequestContext, payload: JWT, fresh = false): boolean | Promise<boolean> {
  const { config } = ctx
  const now = Date.now()
  const absolute = config.session.absoluteMaxAge
  if (absolute !== undefined) {
    const created = createdAtOf(payload)
    if (created === undefined || now - created >= absolute * 1000) return false
  }
  const registry = config.sessionRegistry
  if (!registry) return true
  const id = sessionIdOf(payload)
  if (!id || typeof payload.sub !== "string") return false
  return registry.confirm(payload.sub, id, now, config.session.maxAge * 1000, fresh)
}

/**
 * With `tokenRefresh.jwt` (the caller's check), the token's provider tokens rotated when they expire within the
 * skew, or marked when the provider refused them; `undefined` when nothing changed. A
 * provider that cannot be reached costs nothing here: the session stands, the old tokens
 * stay, and the next check (or `getAccessToken`, which reports it) tries again.
 */
async function refreshedForSession(ctx: RequestContext, payload: JWT): Promise<HeldTokens | undefined> {
  const { config } = ctx
  const held = heldIn(payload)
  if (!held || heldIsCurrent(config, held)) return undefined
  try {
    const next = await rotateHeld(config, held)
    return next === held ? undefined : next
  } catch (error) {
    if (error instanceof ReauthRequired) return { ...held, reauth: true }
    config.logger.error(error as Error)
    return undefined
  }
}

/**
 * The provider tokens a JWT session cookie carries (`tokenRefresh.jwt`), rotated first when
 * they expire within the skew; the re-issued cookie comes back in `cookies`. `null` when the
 * request has no readable session.
 */
export async function heldTokensOfRequest(ctx: RequestContext): Promise<{ held: HeldTokens | undefined; refreshed: boolean; cookies: Cookie[]; failure?: ReauthRequired } | null> {
  const raw = readChunked(ctx.cookies, ctx.cookieOptions.sessionToken.name)
  if (!raw) return null
  const opened = await openToken(ctx, raw).catch(() => null)
  if (!opened) return null
  // A session revoked (registry) or past `absoluteMaxAge` hands out no provider token: the
  // copy of a cookie signed out elsewhere must not keep the user's API access alive.
  const { config } = ctx
  if ((config.sessionRegistry || config.session.absoluteMaxAge !== undefined) && !(await stillValid(ctx, opened.payload))) return null
  const mark = await checkUnverifiedMark(ctx, opened.payload)
  if (mark === "revoked" || mark === "stale") return null
  const before = heldIn(opened.payload)
  if (!before || heldIsCurrent(ctx.config, before)) return { held: before, refreshed: false, cookies: [] }
  let held: HeldTokens
  let failure: ReauthRequired | undefined
  try {
    held = await rotateHeld(ctx.config, before)
  } catch (error) {
    if (!(error instanceof ReauthRequired)) throw error
    held = { ...before, reauth: true }
    failure = error
  }
  const { iat: _i, exp: _e, jti: _j, ...claims } = opened.payload
  const cookies = await writeSession(ctx, { ...claims, [TOKENS_CLAIM]: held })
  // The mark goes into the cookie too, so later checks stop asking the provider.
  return { held, refreshed: !failure, cookies, ...(failure && { failure }) }
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
export async function openToken(ctx: RequestContext, raw: string, shared = false): Promise<{ payload: JWT; rotated: boolean } | null> {
  return rememberedToken(ctx, raw, shared) ?? openUncached(ctx, raw, shared)
}

/**
 * Opens a session cookie that is not remembered: the app's own decoder, or the built-in
 * codec, whose verified tokens are remembered until their `exp`.
 */
function openUncached(ctx: RequestContext, raw: string, shared: boolean): Promise<{ payload: JWT; rotated: boolean } | null> {
  return openUncachedWith(ctx.config, ctx.cookieOptions.sessionToken.name, raw, shared)
}

/** `openUncached` for a configuration and a cookie name (the key salt), without a request context. */
export async function openUncachedWith(config: ResolvedConfig, salt: string, raw: string, shared: boolean): Promise<{ payload: JWT; rotated: boolean } | null> {
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
  // Stryker disable next-line ArithmeticOperator: the remembered copy's deadline only; one that lapses at once is decrypted again, to the same answer
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

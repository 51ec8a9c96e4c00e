import type { Adapter, AdapterSession, AdapterUser } from "../../adapters.js"
import { AdapterError, ServiceUnavailable, SessionTokenError, SignOutError } from "../../errors.js"
import type { Cookie, Session } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { expireCookie } from "../cookies.js"
import { sha256Hex } from "../crypto.js"
import { noopEvent } from "../config/noop-event.js"
import { audit } from "../audit/index.js"
import type { SessionStrategy } from "./strategy.js"
import { clientInfo } from "./client-info.js"
import { store, type StoreFor } from "../config/stores.js"
import { report } from "../report.js"

/**
 * Sessions as database rows; the cookie holds only the random `sessionToken`.
 *
 * A check is one `getSessionAndUser` call. The row's expiry is pushed out at most once per
 * `updateAge`, and concurrent checks of one session share a single write.
 */
export const databaseStrategy: SessionStrategy = {
  async read(ctx, update) {
    const { config } = ctx
    const adapter = store(config.stores, "database")
    const { name, options } = ctx.cookieOptions.sessionToken
    const sessionToken = ctx.cookies[name]
    if (!sessionToken) return { body: null }
    try {
      const stored = storageKey(ctx.config, sessionToken)
      const key = typeof stored === "string" ? stored : await stored
      // The session lane (`session/answers.ts`) may have read the row already for this request.
      const found = await (ctx.lookedUp?.key === key ? ctx.lookedUp.reading : lookup(config, adapter, key))
      if (!found) return { body: null, cookies: [expireCookie(name, options)] }
      const { session, user } = found
      const now = Date.now()
      if (session.expires.getTime() <= now || pastAbsoluteLifetime(ctx, session, now)) {
        // The session is over whether or not the row goes now; a failed delete is only logged.
        await Promise.resolve(adapter.deleteSession(key)).catch((e) => report(config, new SessionTokenError("An expired session row could not be deleted", e as Error)))
        return { body: null, cookies: [expireCookie(name, options)] }
      }
      const cookies: Cookie[] = []
      // A failed extension leaves a still-valid session valid: answer it unextended.
      const extended = isDue(config, session, now)
        ? await extend(ctx, session, now).catch((e) => (report(config, new SessionTokenError("The session could not be extended", e as Error)), null))
        : null
      if (extended) cookies.push({ name, value: sessionToken, options: { ...options, expires: extended.expires } })
      // As in Auth.js, the callback gets the row as the adapter returned it (`expires` its
      // `Date`, from before this check's extension) with the user, and the answer's
      // `expires` is that date: an extension moves it at most once per `updateAge`.
      const defaultSession: Session = {
        user: { name: user.name, email: user.email, image: user.image },
        expires: session.expires.toISOString(),
      }
      const answered = config.callbacks.session
        ? await config.callbacks.session({
            session: { ...session, user } as any,
            user,
            newSession: update?.data,
            ...(update ? { trigger: "update" as const } : {}),
          } as any)
        : defaultSession
      // The row carries the session token; a callback that returns `session` as it came
      // would hand the httpOnly cookie's secret to page scripts (Auth.js does). Not here.
      const body = withoutToken(answered)
      if (config.events.session !== noopEvent) await config.events.session({ session: body } as Parameters<typeof config.events.session>[0])
      return { body, cookies }
    } catch (error) {
      // An outage is neither "signed out" (null would sign everyone out in the UI) nor the
      // session's fault (the cookie is kept): it surfaces as ServiceUnavailable.
      if (error instanceof AdapterError) throw error
      // The app's own session callback or event threw: logged, the session counts as absent.
      config.logger.error(new SessionTokenError("The database session could not be read", error as Error))
      return { body: null }
    }
  },

  async create(ctx, { user, account, profile, isNewUser }) {
    const { config } = ctx
    const adapter = store(config.stores, "database")
    const { name, options } = ctx.cookieOptions.sessionToken
    // Never keep a token the browser arrived with: a fresh one per sign-in defeats fixation.
    const previous = ctx.cookies[name]
    if (previous) await Promise.resolve(adapter.deleteSession(await storageKey(ctx.config, previous))).catch(() => {})
    if (isNewUser) {
      // The jwt callback's `signUp` trigger fires for database sessions too (spec §3).
      await config.callbacks.jwt({ token: { sub: user.id }, user, account, profile, isNewUser, trigger: "signUp" })
    }
    const sessionToken = config.session.generateSessionToken()
    const now = Date.now()
    const session = await adapter.createSession({
      sessionToken: await storageKey(ctx.config, sessionToken),
      userId: user.id!,
      expires: cappedExpiry(ctx, now, now),
      // Only when asked: an Auth.js adapter would pass unknown fields to its database.
      ...(config.session.metadata ? { createdAt: new Date(now), lastSeenAt: new Date(now), ...clientInfo(ctx) } : {}),
    })
    return [{ name, value: sessionToken, options: { ...options, expires: session.expires } }]
  },

  async destroy(ctx) {
    const { config } = ctx
    const { name, options } = ctx.cookieOptions.sessionToken
    const sessionToken = ctx.cookies[name]
    if (sessionToken) {
      let session: AdapterSession | null | undefined | void
      try {
        session = await store(config.stores, "database").deleteSession(await storageKey(ctx.config, sessionToken))
      } catch (error) {
        // Clearing the cookie now would report a sign-out that did not happen: the row (and
        // any copy of the cookie) would stay valid. Keep the cookie so the user can retry.
        throw new ServiceUnavailable("The session row could not be deleted; the session is still valid", new SignOutError("deleteSession failed", error as Error))
      }
      await config.events.signOut({ session: session ?? null })
      await audit(ctx, { type: "signOut", outcome: "success", ...(session?.userId && { userId: session.userId }) })
    }
    return [expireCookie(name, options)]
  },

  async currentUserId(ctx) {
    const sessionToken = ctx.cookies[ctx.cookieOptions.sessionToken.name]
    if (!sessionToken) return null
    const found = await store(ctx.config.stores, "database").getSessionAndUser(await storageKey(ctx.config, sessionToken))
    const now = Date.now()
    return found && found.session.expires.getTime() > now && !pastAbsoluteLifetime(ctx, found.session, now) ? found.user.id : null
  },
}

/**
 * What the database stores for a session token: the token itself (as Auth.js), or with
 * `session.hashTokens` its SHA-256, so a leaked sessions table signs nobody in. The token
 * carries 256 random bits, so an unkeyed hash suffices (and survives secret rotation).
 */
export function storageKey(config: ResolvedConfig, sessionToken: string): Promise<string> | string {
  return config.session.hashTokens ? sha256Hex(sessionToken) : sessionToken
}

/**
 * `getSessionAndUser`, with concurrent checks of one session sharing a single query (a
 * page that fires ten API calls at once costs one read, not ten). Nothing is kept once the
 * query settles, so no answer is older than the request that asked; each caller gets its
 * own copy, since callbacks may change what they receive (`copy: false` for a caller that
 * only reads).
 */
export async function lookup(config: ResolvedConfig, adapter: StoreFor<"database">, sessionToken: string, copy = true): Promise<{ session: AdapterSession; user: AdapterUser } | null> {
  const { lookups } = config.sessionMemory
  const shared = lookups.get(sessionToken)
  if (shared) {
    const found = await shared
    return found && copy ? structuredClone(found) : found
  }
  // The request that started the query keeps the original; those that joined get copies.
  const pending = Promise.resolve(adapter.getSessionAndUser(sessionToken))
  lookups.set(sessionToken, pending)
  try {
    return await pending
  } finally {
    lookups.delete(sessionToken)
  }
}

const RECENT_LIMIT = 10_000

/**
 * Pushes `expires` to now + maxAge (called when the last extension is older than `updateAge`).
 * Concurrent checks share one write, and checks that read the row just before that write
 * landed reuse its result instead of writing again.
 */
export function isDue(config: ResolvedConfig, session: AdapterSession, now: number): boolean {
  const { maxAge, updateAge } = config.session
  return session.expires.getTime() - maxAge * 1000 + updateAge * 1000 <= now
}

async function extend(ctx: RequestContext, session: AdapterSession, now: number): Promise<AdapterSession | null> {
  const { maxAge, updateAge } = ctx.config.session
  const token = session.sessionToken
  const { extending: inFlight, recentlyExtended } = ctx.config.sessionMemory
  const recent = recentlyExtended.get(token)
  if (recent && recent.until > now && recent.expires > session.expires) return { ...session, expires: recent.expires }
  let pending = inFlight.get(token)
  if (!pending) {
    const created = session.createdAt instanceof Date ? session.createdAt.getTime() : undefined
    const expires = created === undefined ? new Date(now + maxAge * 1000) : cappedExpiry(ctx, created, now)
    // With metadata, the extension is also the "last seen" write: no extra query for it.
    const patch = ctx.config.session.metadata ? { sessionToken: token, expires, lastSeenAt: new Date(now) } : { sessionToken: token, expires }
    pending = (async () => {
      try {
        const updated = await store(ctx.config.stores, "database").updateSession(patch)
        if (!updated) return null
        if (recentlyExtended.size >= RECENT_LIMIT) recentlyExtended.delete(recentlyExtended.keys().next().value!)
        recentlyExtended.set(token, { expires, until: now + Math.min(updateAge * 1000, 60_000) })
        return { ...session, ...updated, expires }
      } finally {
        inFlight.delete(token)
      }
    })()
    inFlight.set(token, pending)
  }
  return pending
}

/**
 * T42: a row older than `absoluteMaxAge` is over however often it was extended. A row
 * without `createdAt` (written before `session.metadata` was on) cannot be measured and
 * ends with its idle expiry as before.
 */
export function pastAbsoluteLifetime(ctx: RequestContext, session: AdapterSession, now: number): boolean {
  const absolute = ctx.config.session.absoluteMaxAge
  if (absolute === undefined || !(session.createdAt instanceof Date)) return false
  return now - session.createdAt.getTime() >= absolute * 1000
}

/** `now + maxAge`, but never past `createdAt + absoluteMaxAge`. */
function cappedExpiry(ctx: RequestContext, createdAt: number, now: number): Date {
  const { maxAge, absoluteMaxAge } = ctx.config.session
  const idle = now + maxAge * 1000
  return new Date(absoluteMaxAge === undefined ? idle : Math.min(idle, createdAt + absoluteMaxAge * 1000))
}

/** The callback's answer without a top-level `sessionToken` (copied, never mutated). */
function withoutToken<T>(answer: T): T {
  if (!answer || typeof answer !== "object" || !("sessionToken" in answer)) return answer
  const { sessionToken: _token, ...rest } = answer as T & { sessionToken?: unknown }
  return rest as T
}

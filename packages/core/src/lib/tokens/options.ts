import type { RefreshLock } from "./lock.js"

/**
 * How provider access tokens are refreshed (`getAccessToken`, docs/tokens.md).
 *
 * @example
 * ```ts
 * import { redisRefreshLock } from "@portcullis/redis-adapter"
 *
 * const config = {
 *   adapter,
 *   providers: [Google({ authorization: { params: { access_type: "offline", prompt: "consent" } } })],
 *   tokenRefresh: { skew: 120, lock: redisRefreshLock(redis) },
 * }
 * ```
 */
export interface TokenRefreshOptions {
  /**
   * Seconds before `expires_at` at which an access token already counts as expired and is
   * refreshed, so a token handed out is still valid when the app uses it. Default `60`.
   */
  skew?: number
  /**
   * Milliseconds one refresh may hold the lock. A holder that dies mid-refresh keeps the
   * other instances waiting this long at most. Must exceed the provider's `timeout`
   * (default 10 s). Default `30000`.
   */
  lockTtl?: number
  /**
   * The lock shared by the app's instances. Default: the adapter's own lock
   * (`acquireLock`/`releaseLock`, which the Portcullis SQL and Redis adapters have), else a
   * lock within this process, which is right for one instance only.
   */
  lock?: RefreshLock
  /**
   * With JWT sessions: keep the provider's tokens of the sign-in (access token, refresh
   * token, expiry) in the encrypted session cookie, and refresh them during session checks
   * (the `jwt` callback path), re-issuing the cookie. Default `false`.
   */
  jwt?: boolean
}

// Names the chaos app and its drivers agree on. Kept apart from app.ts, which starts a
// server when imported.

/** The pool size the suite checks `pg_stat_activity` against. */
export const CHAOS_POOL_MAX = 10
/** What the app's store connections call themselves, so the suite can count them. */
export const CHAOS_CLIENT_NAME = "portcullis-chaos"
/** Every chaos user's password. */
export const CHAOS_PASSWORD = "chaos"
/** The Redis adapter's key prefix in the chaos app. */
export const CHAOS_REDIS_PREFIX = "chaos:"

// What the end-to-end app and its suites agree on. Kept apart from app.ts, which starts a
// server when imported.

/** Every e2e user's password (checked by the app's credentials provider). */
export const E2E_PASSWORD = "e2e-password-not-a-secret-of-any-store"
/** The instances' shared `AUTH_SECRET`; the suites search the logs for it. */
export const E2E_SECRET = "e2e-organizations-secret-at-least-32-characters"

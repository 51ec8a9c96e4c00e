import type { AccessToken } from "@portcullis/core"
import { cookies as nextCookies, headers as nextHeaders } from "next/headers"
import { appFor, onServer, type NextAuthConfigInput } from "./config.js"
import { actionURL } from "./session.js"

/** What `getAccessToken` of `NextAuth`'s result takes. */
export interface GetAccessTokenOptions {
  /** The OAuth/OIDC provider id, e.g. `"google"`. */
  provider: string
  /** Whose account: a user id (database-backed accounts). Default: the signed-in user of this request. */
  userId?: string
}

/**
 * A valid access token of the signed-in user's (or `userId`'s) account with a provider,
 * refreshed first when it expires within `tokenRefresh.skew`; concurrent calls make one
 * refresh. See `docs/tokens.md`.
 *
 * @throws `ReauthRequired` (sign in with the provider again), `TokenRefreshFailed` (the
 * provider could not be asked; retry later).
 *
 * @example
 * ```ts
 * // app/api/calendar/route.ts
 * import { getAccessToken } from "@/auth"
 *
 * export async function GET() {
 *   const { accessToken } = await getAccessToken({ provider: "google" })
 *   return fetch("https://www.googleapis.com/calendar/v3/users/me/calendarList", { headers: { Authorization: `Bearer ${accessToken}` } })
 * }
 * ```
 */
export type GetAccessToken = (options: GetAccessTokenOptions) => Promise<AccessToken>

/** Builds the `getAccessToken` member of `NextAuth`'s result. */
export function createGetAccessToken(input: NextAuthConfigInput): GetAccessToken {
  return async ({ provider, userId }) => {
    const app = await appFor(input, undefined)
    if (userId !== undefined) return onServer(() => app.runtime.getAccessToken({ userId, provider }))
    // Cookies from `cookies()`, as `auth()` reads them: a cookie a Server Action just set counts.
    const [incoming, jar] = await Promise.all([nextHeaders(), nextCookies()])
    const headers = new Headers(incoming)
    const request = new Request(actionURL("session", headers, app.config), { headers: { cookie: jar.toString() } })
    return onServer(() =>
      app.runtime.getAccessToken({
        request,
        provider,
        // A rotated JWT is written where Next allows it (Route Handlers, Server Actions);
        // Server Components cannot set cookies, and the next session check re-issues it.
        setCookie: ({ name, value, options }) => {
          try {
            jar.set(name, value, options)
          } catch {}
        },
      }),
    )
  }
}

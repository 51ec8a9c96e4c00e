import type { Session } from "@portcullis/core"
import { sessionFromResponse } from "@portcullis/core/integration"
import { onServer, type App } from "./config.js"
import { actionURL } from "./url.js"

/** A session check's outcome: the session, and the `Set-Cookie` values that refresh it. */
export interface SessionResult {
  session: Session | null
  setCookies: string[]
}

/**
 * The session of the request whose headers are given: `GET <basePath>/session` answered by
 * the app's runtime in-process, with only the cookie forwarded. `null` when signed out;
 * throws `ServiceUnavailable` while the store is down, an `Error` on a configuration error
 * (loud, not everyone signed out), `InvalidRequest` for a malformed `Host`/`X-Forwarded-*`.
 */
export async function readSession(headers: Headers, app: App): Promise<SessionResult> {
  const cookie = headers.get("cookie")
  const request = new Request(actionURL("session", headers, app.config), { headers: cookie ? { cookie } : {} })
  const response = await onServer(() => app.runtime.handle(request))
  return { session: await sessionFromResponse(response), setCookies: response.headers.getSetCookie() }
}

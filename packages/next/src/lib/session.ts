import { createActionURL, type AuthAction, type Session } from "@portcullis/core"
import { sessionFromResponse } from "@portcullis/core/integration"
import { onServer, type App } from "./config.js"

/**
 * The URL of an action for a request known only by its headers (Server Components and
 * Actions have no URL): `AUTH_URL` wins, else `Host`/`X-Forwarded-*`, checked by core
 * (`InvalidRequest` when malformed); whether to believe them is core's `trustHost` decision.
 * Without `X-Forwarded-Proto`, plain http only on the loopback.
 */
export function actionURL(action: string, headers: Headers, config: { basePath: string }): URL {
  const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? ""
  const protocol = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i.test(host) ? "http" : "https"
  return createActionURL(action as AuthAction, protocol, headers, process.env, config)
}

/**
 * The session of the request whose headers are given: `GET <basePath>/session` answered by
 * the app's runtime in-process, only the cookie forwarded, read by core's
 * `sessionFromResponse`: `null` when signed out, `ServiceUnavailable` thrown while the store
 * is down, an `Error` on a configuration error (loud, not everyone signed out).
 */
export async function readSession(headers: Headers, app: App): Promise<{ session: Session | null; setCookies: string[] }> {
  const cookie = headers.get("cookie")
  const { origin } = actionURL("session", headers, app.config)
  // Most reads are answered by core's session lane without a Web `Request` or `Response`
  // (an answer that sets no cookie); the rest are the handler's `Response`, read as before.
  const answer = await onServer(async () => app.runtime.sessionCheck(origin, cookie, "response"))
  if (typeof answer === "string") return { session: JSON.parse(answer) as Session | null, setCookies: [] }
  return { session: await sessionFromResponse(answer), setCookies: answer.headers.getSetCookie() }
}

import { Auth, AuthError, type Session } from "@portcullis/core"
import { ServiceUnavailable } from "@portcullis/core/errors"
import type { PreparedConfig } from "./config.js"
import { actionURL } from "./url.js"

/** A session check's outcome: the session, and the `Set-Cookie` values that refresh it. */
export interface SessionResult {
  session: Session | null
  setCookies: string[]
}

/**
 * Reads the session of the request whose headers are given, through `GET <basePath>/session`
 * answered by `Auth()` in-process. Only the cookie travels: the session depends on nothing
 * else, and callbacks then cannot be steered by other request headers.
 *
 * No session is `null`; a store outage (core's `503`) throws {@link ServiceUnavailable}, so
 * an app can tell "unavailable" from "signed out"; a configuration error (another 5xx from
 * core, already logged in full) throws, so a missing secret is loud instead of silently
 * signing everyone out. A malformed `Host` or `X-Forwarded-*` header throws
 * `InvalidRequest` before any URL is built.
 */
export async function readSession(headers: Headers, config: PreparedConfig): Promise<SessionResult> {
  const url = actionURL("session", headers, config.session)
  const cookie = headers.get("cookie")
  const response = await Auth(new Request(url, { headers: cookie ? { cookie } : {} }), config.session)
  const setCookies = response.headers.getSetCookie()
  if (response.status >= 500) {
    const body = (await response.json().catch(() => null)) as { error?: string; message?: string } | null
    if (response.status === 503 && body?.error === "ServiceUnavailable") throw new ServiceUnavailable(body.message ?? "The session store is unavailable")
    throw new AuthError(`The session could not be read: ${body?.message ?? `status ${response.status}`}`)
  }
  if (!response.ok) return { session: null, setCookies }
  const data = (await response.json().catch(() => null)) as Session | null
  return { session: data && Object.keys(data).length ? data : null, setCookies }
}

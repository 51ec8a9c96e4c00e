import type { RequestHandler } from "@builder.io/qwik-city"
import { getSession } from "@portcullis/qwik"
import { authConfig } from "../../../auth"

/**
 * `GET /api/session`: the session of this request through `getSession` (an endpoint outside
 * the plugin's hooks), `{ session: null }` when signed out. Cookies the check set (a
 * refreshed token, a cleared stale one) are forwarded.
 */
export const onGet: RequestHandler = async (ev) => {
  const { data, cookie } = await getSession(ev.request, authConfig())
  for (const value of cookie) ev.headers.append("set-cookie", value)
  ev.headers.set("cache-control", "no-store")
  ev.json(200, { session: data })
}

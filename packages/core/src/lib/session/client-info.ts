import type { RequestContext } from "../context.js"

/** Longest user agent kept: it is shown to the user, never parsed, so a sentence is plenty. */
const MAX_USER_AGENT = 512

/**
 * What a session remembers of the browser that signed in, for the user to recognise it in
 * their session list: the `User-Agent` (capped), and the client address — from the last
 * `X-Forwarded-For` entry (the one the nearest proxy added) only under `trustHost`, since
 * anyone can send that header to a server not behind a proxy. Display only: nothing is
 * decided on either.
 */
export function clientInfo(ctx: Pick<RequestContext, "headers" | "config">): { userAgent: string | null; ipAddress: string | null } {
  const agent = ctx.headers.get("user-agent")
  const userAgent = agent ? agent.slice(0, MAX_USER_AGENT) : null
  let ipAddress: string | null = null
  if (ctx.config.trustHost) {
    const last = ctx.headers.get("x-forwarded-for")?.split(",").pop()?.trim()
    if (last && /^[0-9A-Fa-f.:]{2,45}$/.test(last)) ipAddress = last
  }
  return { userAgent, ipAddress }
}

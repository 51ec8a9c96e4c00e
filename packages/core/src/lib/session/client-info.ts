import type { RequestContext } from "../context.js"

/** Longest user agent kept: it is shown to the user, never parsed, so a sentence is plenty. */
const MAX_USER_AGENT = 512

/**
 * What a session remembers of the browser that signed in, for the user to recognise it in
 * their session list: the `User-Agent` (capped), and the client address — the one the integration
 * reported (`HandleOptions.clientAddress`), else the last `X-Forwarded-For` entry (the one
 * the nearest proxy added) only under `trustHost`, since anyone can send that header to a
 * server not behind a proxy. Display only: nothing is
 * decided on either.
 */
export function clientInfo(ctx: Pick<RequestContext, "headers" | "config" | "clientAddress">): { userAgent: string | null; ipAddress: string | null } {
  const agent = ctx.headers.get("user-agent")
  const userAgent = agent ? agent.slice(0, MAX_USER_AGENT) : null
  const candidate = ctx.clientAddress ?? (ctx.config.trustHost ? ctx.headers.get("x-forwarded-for")?.split(",").pop()?.trim() : undefined)
  // IPv4, IPv6 (an IPv4-mapped one too): anything else is not shown.
  const ipAddress = candidate && /^[0-9A-Fa-f.:]{2,45}$/.test(candidate) ? candidate : null
  return { userAgent, ipAddress }
}

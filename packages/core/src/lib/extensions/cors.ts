/**
 * CORS for an extension's `cors: true` routes (`from: "anywhere"`, so they read no cookies):
 * the preflight's answer, and the headers every answer of such a route carries, refusals
 * included — a browser hides a response without them from the script, which would then see
 * a network error instead of the `invalid_grant` or the 429 it must act on.
 * @module
 */
import { MethodNotAllowed } from "../../errors.js"
import type { ResponseInternal } from "../../base-types.js"
import { corsMethods, matchRoute } from "./resolve.js"
import type { ResolvedExtension } from "./shapes.js"

/** Request headers a preflight allows: bearer tokens, JSON and form bodies, DPoP proofs, MCP's version header. */
export const CORS_ALLOW_HEADERS = "authorization, content-type, dpop, mcp-protocol-version"

/** How long a browser may keep a preflight's answer, seconds (browsers cap it at 2 hours or less). */
export const CORS_MAX_AGE = 600

/**
 * On every answer of a `cors` route: any origin, never with credentials (a `*` origin forbids
 * them anyway); the challenge and the wait readable by the script.
 */
const ANSWER_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "WWW-Authenticate, Retry-After",
}

/** The preflight's answer for a path whose `cors` routes take `methods`; a path with none is refused (405, no CORS headers). */
export function preflight(methods: string[], allow: string[]): ResponseInternal {
  if (!methods.length) {
    const error = new MethodNotAllowed(allow.length ? `OPTIONS is not allowed here; use ${allow.join(", ")}` : "OPTIONS is not allowed here")
    if (allow.length) (error as MethodNotAllowed & { allow?: string }).allow = allow.join(", ")
    throw error
  }
  return {
    status: 204,
    headers: {
      ...ANSWER_HEADERS,
      "Access-Control-Allow-Methods": methods.join(", "),
      "Access-Control-Allow-Headers": CORS_ALLOW_HEADERS,
      "Access-Control-Max-Age": String(CORS_MAX_AGE),
      "Cache-Control": "no-store",
    },
  }
}

/** `answer` with the CORS headers of a `cors` route's answers. */
export function withCors(answer: ResponseInternal): ResponseInternal {
  // Kept as a plain object when it was one: core's responders read those by name (and a
  // `Headers` built only to be dropped cost a CORS route's answer more than its headers).
  if (!(answer.headers instanceof Headers || Array.isArray(answer.headers))) return { ...answer, headers: { ...(answer.headers as Record<string, string> | undefined), ...ANSWER_HEADERS } }
  const headers = new Headers(answer.headers)
  for (const [name, value] of Object.entries(ANSWER_HEADERS)) headers.set(name, value)
  return { ...answer, headers }
}

/**
 * A refusal core answers before an extension's router sees the request — a body too large,
 * or one that does not parse — with the CORS headers when its path is a `cors` route's: the
 * script that sent it reads the 413 or the 400 as it reads the route's own refusals, not a
 * network error. Any other path's refusal is left as it is.
 */
export function withPathCors(answer: ResponseInternal, url: string, method: string, basePath: string, extensions: ReadonlyMap<string, ResolvedExtension>): ResponseInternal {
  let pathname: string
  try {
    pathname = new URL(url).pathname
  } catch {
    return answer
  }
  if (!pathname.startsWith(`${basePath}/`)) return answer
  // Split as the router splits (`parseAction`): empty segments dropped, each decoded.
  const [id, ...rest] = pathname.slice(basePath.length).split("/").filter(Boolean)
  const extension = id === undefined ? undefined : extensions.get(id)
  if (!extension) return answer
  let path: string[]
  try {
    path = rest.map((segment) => decodeURIComponent(segment))
  } catch {
    return answer
  }
  return answersWithCors(extension, path, matchRoute(extension, method.toUpperCase(), path)) ? withCors(answer) : answer
}

/**
 * Whether the answer to a request the router matched as `match` carries the CORS headers:
 * by the route the method takes, so a path's cors GET lends nothing to a POST beside it that
 * is not; for a method the path does not take (405), by whether the path has cors routes.
 * The one rule for the router's answers (`handle.ts`) and the refusals before it.
 */
export function answersWithCors(extension: ResolvedExtension, path: string[], match: ReturnType<typeof matchRoute>): boolean {
  return !!match && ("route" in match ? match.route.route.cors === true : corsMethods(extension, path).length > 0)
}


/**
 * The SCIM server as a Web `fetch` handler: `Request` in, `Response` out, for apps (and
 * tests) that serve SCIM outside core's extension routes. SCIM clients authenticate with a
 * bearer token, send PUT, PATCH and DELETE, and carry no CSRF token — so SCIM is not an
 * ordinary cookie-session route.
 * @module
 */
import { badRequest, ScimError, SCIM_CONTENT_TYPE, type ScimResponse } from "./errors.js"
import { handleScimRequest, type ScimEndpointOptions, type ScimRequest } from "./handler.js"
import { readCapped } from "../capped.js"

/** Bodies above this are refused with 413 unless `maxBodyBytes` says otherwise: a group of 10,000 members fits. */
const DEFAULT_MAX_BODY = 1024 * 1024
const METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"])

/** Options of {@link scimFetchHandler}. */
export interface ScimFetchOptions extends ScimEndpointOptions {
  /** The path SCIM is served under, before the connection's id: `/auth/sso/scim` serves `/auth/sso/scim/<connection id>/v2/Users`. */
  basePath: string
  maxBodyBytes?: number
}

/**
 * A `fetch` handler serving each connection's SCIM endpoint at `<basePath>/<connection id>/v2/…`.
 *
 * @example
 * ```ts
 * import { scimFetchHandler } from "@portcullis/sso"
 *
 * const scim = scimFetchHandler({ basePath: "/auth/sso/scim", store, directoryFor: (token) => directoryOf(token) })
 * export default { fetch: (request: Request) => scim(request) }
 * ```
 */
export function scimFetchHandler(options: ScimFetchOptions): (request: Request) => Promise<Response> {
  const base = options.basePath.replace(/\/+$/, "")
  const limit = options.maxBodyBytes ?? DEFAULT_MAX_BODY
  return async (request) => {
    const url = new URL(request.url)
    if (!url.pathname.startsWith(base + "/")) return respond(new ScimError(404, "No such endpoint").toResponse())
    let segments: string[]
    try {
      segments = url.pathname.slice(base.length + 1).split("/").map(decodeURIComponent)
    } catch {
      return respond(new ScimError(404, "No such endpoint").toResponse())
    }
    const [connectionId = "", version, ...path] = segments
    if (!connectionId || version !== "v2") return respond(new ScimError(404, "No such endpoint").toResponse())
    if (!METHODS.has(request.method)) return respond(new ScimError(405, "This endpoint does not allow that method").toResponse())
    let body: unknown
    try {
      body = await readBody(request, limit)
    } catch (error) {
      if (error instanceof ScimError) return respond(error.toResponse())
      throw error
    }
    const query: Record<string, string> = {}
    for (const [key, value] of url.searchParams) query[key] = value
    const ifMatch = request.headers.get("if-match")
    const res = await handleScimRequest(options, {
      authorization: request.headers.get("authorization"),
      connectionId,
      method: request.method as ScimRequest["method"],
      path,
      query,
      body,
      baseUrl: `${url.origin}${base}/${encodeURIComponent(connectionId)}/v2`,
      ...(ifMatch !== null ? { ifMatch } : {}),
    })
    return respond(res)
  }
}

/** Reads a JSON body of at most `limit` bytes; `undefined` when there is none. */
async function readBody(request: Request, limit: number): Promise<unknown> {
  if (request.method === "GET" || request.method === "DELETE" || !request.body) return undefined
  const declared = Number(request.headers.get("content-length") ?? "0")
  if (declared > limit) throw new ScimError(413, "The request body is too large")
  const bytes = await readCapped(request.body, limit, () => new ScimError(413, "The request body is too large"))
  if (bytes.length === 0) return undefined
  const text = bytes.toString("utf8")
  try {
    return JSON.parse(text)
  } catch {
    throw badRequest("invalidSyntax", "The body is not valid JSON")
  }
}

function respond(res: ScimResponse): Response {
  const headers = new Headers(res.headers)
  if (res.body !== undefined && !headers.has("content-type")) headers.set("Content-Type", SCIM_CONTENT_TYPE)
  return new Response(res.body === undefined ? null : JSON.stringify(res.body), { status: res.status, headers })
}

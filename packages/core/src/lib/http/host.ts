/**
 * The syntax of the headers a site origin is built from: `Host` (or `:authority`),
 * `X-Forwarded-Host` and `X-Forwarded-Proto`. Core and every integration check them here,
 * before any URL is built from them, so a hostile value is one 400 everywhere instead of a
 * URL parser's TypeError (a 500), a `null` origin, or a path or userinfo inside an origin.
 *
 * Whether forwarded headers may be believed at all is not decided here: callers pass that in.
 */
import { InvalidRequest } from "../../errors.js"

/** Longest DNS name (RFC 1035 §2.3.4), so also the longest host this accepts. */
const MAX_HOSTNAME = 253

/**
 * A DNS-style name: labels of letters, digits, `-` and `_`, an optional trailing dot.
 * `_` is outside RFC 1123 but common in container and service names, and cannot end a host.
 */
const hostnamePattern = /^(?:[A-Za-z0-9_-]{1,63}\.)*[A-Za-z0-9_-]{1,63}\.?$/
/** Bracketed IPv6 (no zone id); the URL parser then checks the address itself. */
const ipv6Pattern = /^\[[0-9A-Fa-f:.]{2,45}\]$/

/** The scheme a request was served over. */
export type Proto = "http" | "https"

/**
 * A `Host` value as `host[:port]`, lower-cased, or an {@link InvalidRequest}: a bare
 * hostname, IPv4 address or bracketed IPv6 address, and a port of 1–65535. Userinfo, paths,
 * queries, spaces, control characters and empty values are all refused.
 */
export function checkHost(value: string): string {
  const { hostname, port } = splitHost(value)
  if (hostname.length > MAX_HOSTNAME || !(hostnamePattern.test(hostname) || ipv6Pattern.test(hostname))) {
    throw new InvalidRequest(`The host ${describe(value)} is not a bare host name or address`)
  }
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) {
    throw new InvalidRequest(`The port of the host ${describe(value)} is not between 1 and 65535`)
  }
  // The URL parser has the last word on addresses: `999.1.1.1`, `a.1` and malformed IPv6
  // pass the patterns above but are not hosts.
  try {
    return new URL(`http://${hostname}`).host + (port === undefined ? "" : `:${Number(port)}`)
  } catch {
    throw new InvalidRequest(`The host ${describe(value)} is not a valid address`)
  }
}

/**
 * A protocol as `http` or `https`, or an {@link InvalidRequest}. Accepts a scheme with or
 * without its colon (`https`, `https:`) in any case; anything else (`javascript`, `ftp`,
 * an empty value) is refused, since it would make the origin `null`.
 */
export function checkProto(value: string): Proto {
  const proto = value.trim().replace(/:$/, "").toLowerCase()
  if (proto !== "http" && proto !== "https") throw new InvalidRequest(`The protocol ${describe(value)} is neither http nor https`)
  return proto
}

/** What {@link originFromHeaders} builds an origin from. */
export interface OriginHeaders {
  /** The `Host` header (or HTTP/2 `:authority`) the server received. */
  host: string | null | undefined
  /** How the connection arrived: `http`/`https`, with or without the colon (`url.protocol`). */
  protocol: string
  /** `X-Forwarded-Host` as received (a comma list; its first value counts). */
  forwardedHost?: string | null | undefined
  /** `X-Forwarded-Proto` as received (a comma list; its first value counts). */
  forwardedProto?: string | null | undefined
  /**
   * Whether the forwarded headers come from a proxy the app trusts. When `false` they are
   * ignored entirely (not even checked): they are then just text from the client.
   */
  trustForwarded: boolean
}

/**
 * The origin (`https://example.com`, `http://127.0.0.1:3000`) of a request, from its `Host`
 * and, when trusted, `X-Forwarded-Host`/`X-Forwarded-Proto`: the first value of each comma
 * list, an empty one counting as absent. Every value used is checked with {@link checkHost}
 * and {@link checkProto}; a malformed or missing host throws {@link InvalidRequest}, which
 * core answers with a 400. Integrations call it (from `@portcullis/core/integration`)
 * before building any URL from request headers, and answer the error as core would.
 *
 * @example
 * ```ts
 * import { invalidRequestResponse, originFromHeaders } from "@portcullis/core/integration"
 * import { InvalidRequest } from "@portcullis/core/errors"
 *
 * let origin: string
 * try {
 *   origin = originFromHeaders({
 *     host: req.headers.host, // "a@evil.example", "x:99999", "evil.example/x" → InvalidRequest
 *     protocol: req.socket.encrypted ? "https" : "http",
 *     forwardedHost: req.headers["x-forwarded-host"],
 *     forwardedProto: req.headers["x-forwarded-proto"], // "javascript" → InvalidRequest
 *     trustForwarded: isMyProxy(req.socket.remoteAddress),
 *   })
 * } catch (error) {
 *   if (error instanceof InvalidRequest) return invalidRequestResponse(error) // core's 400
 *   throw error
 * }
 * const request = new Request(new URL(req.url, origin), { method: req.method, headers })
 * ```
 */
export function originFromHeaders(input: OriginHeaders): string {
  const forwardedHost = input.trustForwarded ? firstOf(input.forwardedHost) : undefined
  const forwardedProto = input.trustForwarded ? firstOf(input.forwardedProto) : undefined
  const host = forwardedHost ?? input.host
  if (host === null || host === undefined || host === "") throw new InvalidRequest("The request has no Host header")
  const proto = checkProto(forwardedProto ?? input.protocol)
  return new URL(`${proto}://${checkHost(host)}`).origin
}

/** The first value of a comma-separated header; `undefined` when that is empty. */
function firstOf(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined
  const first = value.split(",")[0]!.trim()
  return first || undefined
}

/**
 * `host[:port]` split at the port colon. The port is whatever follows the last colon after
 * the bracket of an IPv6 literal, or the only colon of anything else; a second colon
 * outside brackets leaves it in the hostname, where the pattern refuses it.
 */
function splitHost(value: string): { hostname: string; port?: string } {
  if (value.startsWith("[")) {
    const close = value.indexOf("]")
    // With no "]", close + 1 is 0, and value[0] is the "[".
    if (value[close + 1] === ":") return { hostname: value.slice(0, close + 1), port: value.slice(close + 2) }
    return { hostname: value }
  }
  const colon = value.indexOf(":")
  if (colon !== -1 && value.indexOf(":", colon + 1) === -1) return { hostname: value.slice(0, colon), port: value.slice(colon + 1) }
  return { hostname: value }
}

/** A value for an error message: quoted, shortened, control characters escaped by JSON. */
function describe(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value)
}

import type { ResolvedConfig } from "../config/resolved.js"
import { parseCookies } from "../cookies.js"
import { originKey } from "./origin-memo.js"
import type { ParsedRequest } from "./request.js"

/**
 * The request most traffic is: `GET <basePath>/session` with no query, a page asking
 * "who is signed in?". When its origin is one this configuration has already worked out,
 * it is parsed here from the URL string — no URL parse, no action table, no origin checks
 * run again — into exactly the `ParsedRequest` that `parseRequest` builds for it.
 * Anything else (another action or method, a query, an origin not yet remembered, a URL
 * with userinfo) is `undefined`: `parseRequest` then does the full work, and remembers the
 * origin for the next time. `test/http/session-check.test.ts` holds both parsers to the
 * same answers.
 */
export class SessionCheckParser {
  readonly #config: ResolvedConfig
  readonly #sessionPath: string

  constructor(config: ResolvedConfig) {
    this.#config = config
    this.#sessionPath = `${config.basePath}/session`
  }

  /** The origin of `request` if it is a session check from a remembered origin; else `undefined`. */
  origin(request: Request): { origin: string; trusted: boolean } | undefined {
    if (request.method !== "GET") return undefined
  // A Request's URL is serialised by the WHATWG parser: `scheme://host[:port]/path[?query]`,
  // scheme and host lower-cased, default port dropped. So the path starts at the first "/"
  // after the scheme, and comparing strings is comparing URLs.
    const href = request.url
    const afterScheme = href.startsWith("https://") ? 8 : href.startsWith("http://") ? 7 : 0
    if (afterScheme === 0) return undefined
    const pathStart = href.indexOf("/", afterScheme)
    const sessionPath = this.#sessionPath
    // No "/" after the scheme (pathStart -1) fails the length test: `href` would have to be
    // one character shorter than the path it ends with.
    if (href.length - pathStart !== sessionPath.length || !href.endsWith(sessionPath)) return undefined
    const config = this.#config
    if (config.siteUrl) return { origin: config.siteUrl.origin, trusted: true }
    const schemeAndHost = href.slice(0, pathStart)
    // `user:pass@host`: URL.host leaves the userinfo out, so the full parser's key would differ.
    // Stryker disable next-line ConditionalExpression,BlockStatement: kept as the guard the comment states, but no test can fail without it: Node's Request refuses a URL with userinfo, and the full parser remembers origins under `URL.host`, which never holds "@", so such a key is never found.
    if (schemeAndHost.includes("@", afterScheme)) return undefined
    return config.origins.peek(originKey(schemeAndHost, request.headers))
  }

  /**
   * The remembered origin of a server-side session read on `origin` (what
   * `originFromHeaders` returned, `scheme://host[:port]`) carrying no header but the
   * cookie — the request `readSession` would otherwise build. Only an origin a full request
   * already worked out is found: the memo holds serialised origins, so a string that is not
   * one (upper case, a default port, a path) simply misses and the full check runs.
   */
  originOf(origin: string): { origin: string; trusted: boolean } | undefined {
    const config = this.#config
    if (config.siteUrl) return { origin: config.siteUrl.origin, trusted: true }
    // The key of a request carrying no forwarded headers, as `readSession`'s has none.
    return config.origins.peek(originKey(origin, null))
  }

  /** The `ParsedRequest` of a session check whose origin `origin()` found. */
  parsed(request: Request, known: { origin: string; trusted: boolean }): ParsedRequest {
    const headers = request.headers
    return {
      request,
      method: "GET",
      action: "session",
      providerId: undefined,
      url: new URL(this.#sessionPath, known.origin),
      origin: known.origin,
      originTrusted: known.trusted,
      headers,
      cookies: parseCookies(headers.get("cookie")),
      query: {},
      body: undefined,
    }
  }
}

/**
 * Core's Node path (`AuthRuntime.handleNode`): a request as a Node server holds it — the
 * origin the integration worked out, the target, Node's headers, the body as a stream of
 * chunks — and the answer as a Node server writes it. On Node the Web `Request` carrying a
 * body and the `Response` read back cost more than most of what core does for an answer.
 * Loaded on the first Node request (`AuthRuntime` keeps the import), so a server that never
 * takes this path — an edge runtime, a fetch-style host — loads none of it.
 * @module
 */
import type { Cookie, ResponseInternal } from "../../base-types.js"
import { InvalidRequest, MethodNotAllowed } from "../../errors.js"
import { serializeCookie } from "../cookies.js"
import { requestErrorResponse } from "../errors.js"
import type { ResolvedConfig } from "../config/resolved.js"
import type { LookedUp, Opening } from "../session/answers.js"
import { originFromHeaders, type OriginHeaders } from "./host.js"
import { OriginMemo } from "./origin-memo.js"
import type { BodyReader } from "./request.js"
import { noStore, privateJsonHeaders } from "./response.js"
import { dropUnread, readNodeBody, type NodeBody } from "./node-body.js"

export type { NodeBody }

/**
 * A request as a Node server holds it (node:http, Express), for `AuthRuntime.handleNode`:
 * no Web `Request` is built with its body, and no Web `Response` for its answer.
 */
export interface NodeRequest {
  /** The request's method (`req.method`). */
  method: string
  /**
   * The site's origin: as the integration worked it out with `originFromHeaders` (its own
   * rules for forwarded headers applied), `scheme://host[:port]`; or what the request said,
   * for core to work it out with `originFromHeaders` (remembered per runtime). An
   * `InvalidRequest` (a malformed `Host`) is core's 400. Core then checks the origin as it
   * checks a Web request's (`AUTH_URL`, `trustedOrigins`, `trustHost`).
   */
  origin: string | OriginHeaders
  /** The request target, path and query (`req.url`, Express's `req.originalUrl`); only they are read. */
  target: string
  /**
   * Node's headers (`req.headers`: lower-case names, repeated ones joined). Forwarded
   * headers (`X-Forwarded-*`, `Forwarded`) and hop-by-hop ones are not passed on: the
   * integration judged them when it worked out `origin`.
   */
  headers: Readonly<Record<string, string | string[] | undefined>>
  /** The body: the request itself (an async iterable of chunks), or what a body parser left, re-encoded. */
  body?: NodeBody
  /** The peer's address, as `HandleOptions.clientAddress`. */
  clientAddress?: string
  /**
   * The headers as sent (`req.rawHeaders`: name and value alternating), when the server has
   * them: two `Host` headers are then a 400, as for Node's own request (Node keeps only the
   * first in `headers`, and a proxy in front may have routed by the last).
   */
  rawHeaders?: readonly string[]
}

/** Node's request itself (node:http's `IncomingMessage`), as `AuthRuntime.serveNode` also takes it. */
export interface NodeIncoming extends AsyncIterable<Uint8Array | string> {
  method?: string
  url?: string
  headers: Readonly<Record<string, string | string[] | undefined>>
  /** The headers as sent, name and value alternating: Node keeps only the first `Host` in `headers`. */
  rawHeaders?: readonly string[]
  socket?: { remoteAddress?: string; encrypted?: boolean } | null
}

/** A Node response as `AuthRuntime.serveNode` writes it: node:http's `ServerResponse` is one. */
export interface NodeOutgoing {
  writeHead(status: number, headers: Record<string, string | string[]>): unknown
  end(body?: string | Uint8Array): unknown
}

/** Headers a Node request does not pass on to core: hop-by-hop, and forwarded ones the integration judged. */
const NOT_PASSED: ReadonlySet<string> = new Set(["x-forwarded-host", "x-forwarded-proto", "x-forwarded-for", "forwarded", "connection", "keep-alive", "transfer-encoding", "upgrade"])

/** The session lane's answer for a session check's cookie on `origin` (`AuthRuntime`); `undefined` when it cannot answer. */
export type SessionLane = (origin: string, cookie: string | null) => string | LookedUp | Opening | undefined | Promise<string | LookedUp | Opening | undefined>

/** The runtime's request engine (`AuthRuntime`'s `#run`), answering with `options.node`'s answer. */
export type Engine = (web: Request, options: { skipCSRF?: boolean; clientAddress?: string; node: typeof toNodeAnswer }, body: BodyReader | undefined, begun: LookedUp | Opening | undefined) => Promise<Response | ResponseInternal | NodeAnswer>

/** Core's Node path for one runtime: `AuthRuntime.handleNode` and `serveNode`. */
export class NodePath {
  /** Origins worked out from what requests said (bounded; a refusal is not kept). */
  readonly #origins = new OriginMemo()

  /** What `AuthRuntime` lends its Node path: its configuration, its session lane, its request engine. */
  constructor(
    readonly config: ResolvedConfig,
    readonly sessionLane: SessionLane,
    readonly run: Engine,
  ) {}

  /** `AuthRuntime.handleNode`. */
  async handle(request: NodeRequest, options: { skipCSRF?: boolean } = {}): Promise<NodeAnswer> {
    try {
      return await this.#answer(request, options)
    } finally {
      dropUnread(request.body)
    }
  }

  /**
   * `AuthRuntime.serveNode`: a `NodeRequest`, or Node's request itself (it has no `target`).
   * A session check the lane answers at once is written at once: no promise in between.
   */
  serve(request: NodeRequest | NodeIncoming, res: NodeOutgoing, options: { skipCSRF?: boolean; clientAddress?: string } = {}): void | Promise<void> {
    let answer: NodeAnswer | Promise<NodeAnswer>
    const incoming = "target" in request ? request : this.#fromIncoming(request, options.clientAddress)
    answer = this.#answer(incoming, options)
    if (answer instanceof Promise) {
      return answer.then(
        (settled) => {
          dropUnread(incoming.body)
          writeNodeAnswer(res, settled)
        },
        (error: unknown) => {
          dropUnread(incoming.body)
          throw error
        },
      )
    }
    dropUnread(incoming.body)
    writeNodeAnswer(res, answer)
  }

  /** The answer to `request`: at once when the session lane has it, else once the engine has run. */
  #answer(request: NodeRequest, options: { skipCSRF?: boolean }): NodeAnswer | Promise<NodeAnswer> {
    // Two Host headers are a 400 (RFC 9112 §3.2): Node keeps the first, and a proxy in front
    // may have routed by the last.
    if (request.rawHeaders && hostCount(request.rawHeaders) > 1) return refusal(new InvalidRequest("The request has more than one Host header"))
    let origin: string
    try {
      origin = typeof request.origin === "string" ? request.origin : this.#origin(request.origin)
    } catch (error) {
      if (error instanceof InvalidRequest) return refusal(error)
      throw error
    }
    const method = request.method.toUpperCase()
    // The request most traffic is, `GET <basePath>/session`: answered by the session lane
    // (a cached or valid token, a live row) before anything else is built; what the lane
    // began (a decryption, a row read) is handed to the full check otherwise.
    if (method === "GET" && request.target === `${this.config.basePath}/session` && request.headers["x-auth-return-redirect"] === undefined) {
      const cookie = request.headers.cookie
      const pending = this.sessionLane(origin, (Array.isArray(cookie) ? cookie.join("; ") : cookie) || null)
      const settle = (answer: string | LookedUp | Opening | undefined) => (typeof answer === "string" ? sessionAnswer(answer) : this.#full(request, origin, method, options, answer))
      return pending instanceof Promise ? pending.then(settle) : settle(pending)
    }
    return this.#full(request, origin, method, options, undefined)
  }

  /** The engine's answer: a bodyless Web `Request`, the body read from Node's chunks, a `NodeAnswer` out. */
  async #full(request: NodeRequest, origin: string, method: string, options: { skipCSRF?: boolean }, begun: LookedUp | Opening | undefined): Promise<NodeAnswer> {
    const prepared = prepare(request, origin, method)
    if (!("web" in prepared)) return prepared
    const run = { ...options, node: toNodeAnswer, ...(request.clientAddress !== undefined && { clientAddress: request.clientAddress }) }
    const answer = await this.run(prepared.web, run, prepared.body, begun)
    return answer instanceof Response ? nodeAnswerOf(answer) : (answer as NodeAnswer)
  }

  /**
   * Node's request as a `NodeRequest`: the origin from the `Host` the server saw (`https` on
   * a TLS socket) — or, with `trustHost`, what a proxy forwarded — and the client's address
   * from the socket unless the app says otherwise (its proxy's rules).
   */
  #fromIncoming(req: NodeIncoming, clientAddress = req.socket?.remoteAddress): NodeRequest {
    const trustForwarded = this.config.trustHost === true
    const headers = req.headers
    return {
      method: req.method ?? "GET",
      origin: {
        host: single(headers.host),
        protocol: req.socket?.encrypted ? "https" : "http",
        forwardedHost: trustForwarded ? single(headers["x-forwarded-host"]) : undefined,
        forwardedProto: trustForwarded ? single(headers["x-forwarded-proto"]) : undefined,
        trustForwarded,
      },
      target: req.url ?? "/",
      headers,
      body: req,
      ...(clientAddress !== undefined && { clientAddress }),
      ...(req.rawHeaders && { rawHeaders: req.rawHeaders }),
    }
  }

  /** `originFromHeaders(input)`, remembered: a server sees the same one or two on nearly every request. */
  #origin(input: OriginHeaders): string {
    const forwarded = input.trustForwarded ? `${input.forwardedHost ?? "\u0000"}\n${input.forwardedProto ?? "\u0000"}` : "\u0000"
    return this.#origins.get(`${input.protocol}\n${input.host ?? "\u0000"}\n${forwarded}`, () => ({ origin: originFromHeaders(input), trusted: false })).origin
  }
}

/** A session check's answer from the lane: its JSON as it is, with the session answer's headers. */
function sessionAnswer(body: string): NodeAnswer {
  return { status: 200, headers: { ...privateJsonHeaders }, body }
}

function hostCount(raw: readonly string[] | undefined): number {
  let count = 0
  // Node's own list holds strings only; one an app built may not (a hole, a null): skipped.
  if (raw) {
    for (let i = 0; i < raw.length; i += 2) {
      const name = raw[i]
      if (typeof name === "string" && name.length === 4 && name.toLowerCase() === "host") count++
    }
  }
  return count
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** What `prepare` gives the runtime: the bodyless Web `Request`, and the body's reader. */
export interface Prepared {
  web: Request
  body: BodyReader | undefined
}

/**
 * The Web `Request` of a Node request, *without* its body (a few µs: what hooks, the app's
 * `i18n.locale` and the telemetry span read), and a reader of its body for `parseRequest`.
 * A request core refuses before any action (a method the Fetch API cannot carry, a target
 * or origin that makes no URL) is answered here, as `Auth()` answers it.
 */
export function prepare(request: NodeRequest, origin: string, method: string): Prepared | NodeAnswer {
  // TRACE, TRACK and CONNECT cannot be a Web `Request`: core's 405 for a method no action takes.
  if (/^(?:CONNECT|TRACE|TRACK)$/.test(method)) {
    return refusal(Object.assign(new MethodNotAllowed(`${method} is not allowed here; use GET, POST`), { allow: "GET, POST" }))
  }
  let url: URL
  try {
    const target = request.target
    if (PLAIN_TARGET.test(target) && BARE_ORIGIN.test(origin)) url = new URL(`${origin}${target}`)
    else {
      // Only the path and query: a target in absolute form (`GET http://evil.example/…`) or
      // starting with `//` (or `/\`, which URLs read alike) must not carry its own host into
      // the URL core sees.
      const { pathname, search } = new URL(target, "http://target.invalid")
      url = new URL(`${origin}${pathname}${search}`)
    }
  } catch {
    return refusal(new InvalidRequest("The request target or origin is not valid"))
  }
  const headers = new Headers()
  for (const name in request.headers) {
    const value = request.headers[name]
    if (value === undefined || NOT_PASSED.has(name)) continue
    if (typeof value === "string") headers.append(name, value)
    else for (const v of value) headers.append(name, v)
  }
  const body = method !== "GET" && method !== "HEAD" ? request.body : undefined
  return { web: new Request(url, { method, headers }), body: body === undefined ? undefined : (limit, tooLarge) => readNodeBody(body, limit, tooLarge) }
}

/**
 * A target in origin form that reads the same appended to the origin as resolved against
 * it: a path of printable characters with no `\` or `#`, not starting with `//`, and not
 * ending in `?` (an empty query, which resolving drops). Most targets are one
 * (`/auth/session`), and so cost one URL parse, not two (`test/http/node-target.test.ts`).
 */
const PLAIN_TARGET = /^\/(?![/\\])[\x21\x22\x24-\x5b\x5d-\x7e]*(?<!\?)$/
/**
 * An origin as `NodeRequest.origin` promises it, `scheme://host[:port]` and nothing after:
 * only then does appending a target equal resolving it. With a path (`https://app.example/`,
 * `…/base`), the target's dot segments would climb out of it.
 */
const BARE_ORIGIN = /^[a-z][a-z\d+.-]*:\/\/[^/?#\\]+$/i

/** Core's answer to a request it refuses as malformed (`InvalidRequest` 400, `MethodNotAllowed` 405). */
export function refusal(error: InvalidRequest | MethodNotAllowed): NodeAnswer {
  return toNodeAnswer(requestErrorResponse(error)!, [], false)
}

/**
 * Writes a {@link NodeAnswer}: its status and headers in one `writeHead`, and the body with
 * its `Content-Length` — without one, Node frames the body in chunked encoding, which the
 * client has to parse back.
 */
export function writeNodeAnswer(res: NodeOutgoing, answer: NodeAnswer): void {
  if (answer.body === undefined) {
    // An empty body says so too (a redirect): `Content-Length: 0`, not an empty chunked
    // stream — except where a length may not be sent at all (204, 304: RFC 9110 §8.6).
    const sized = answer.status === 204 || answer.status === 304 ? answer.headers : { ...answer.headers, "content-length": "0" }
    res.writeHead(answer.status, sized)
    res.end()
    return
  }
  // Most bodies are ASCII (JSON of ids and tokens): then characters are bytes, and the
  // string goes out as it is; otherwise it is encoded once, for its length.
  const body = /^[\x00-\x7f]*$/.test(answer.body) ? answer.body : new TextEncoder().encode(answer.body)
  res.writeHead(answer.status, { ...answer.headers, "content-length": String(body.length) })
  res.end(body)
}

/** A `Response` of the rare paths that build one (a broken configuration's page, its health report) as a {@link NodeAnswer}. */
export async function nodeAnswerOf(response: Response): Promise<NodeAnswer> {
  return { status: response.status, headers: plainHeaders(response.headers), body: response.body ? await response.text() : undefined }
}

/**
 * An answer as a Node server writes it (`res.writeHead(status, headers).end(body)`): what
 * `AuthRuntime.handleNode` gives instead of a Web `Response`, whose construction and reading
 * back cost more than the rest of a session check. Header names are as core writes them;
 * `set-cookie` is a list, one entry per cookie.
 */
export interface NodeAnswer {
  status: number
  headers: Record<string, string | string[]>
  body: string | undefined
}

/**
 * Respond, for a Node server: `toResponse`'s rules exactly (302 without a referrer,
 * `200 {url}` with `X-Auth-Return-Redirect`, JSON unless the body is a string of a non-JSON
 * type), as a plain {@link NodeAnswer}. `test/http/node-lane.test.ts` holds both to the
 * same status, headers and body.
 */
export function toNodeAnswer(internal: ResponseInternal, cookies: Cookie[], returnRedirect: boolean): NodeAnswer {
  const headers = plainHeaders(internal.headers)
  if (cookies.length) headers["set-cookie"] = cookies.map((c) => serializeCookie(c.name, c.value, c.options))
  if (internal.redirect) {
    headers["cache-control"] = noStore
    headers["referrer-policy"] = "no-referrer"
    if (returnRedirect) {
      headers["content-type"] = "application/json"
      return { status: 200, headers, body: JSON.stringify({ url: internal.redirect }) }
    }
    headers.location = internal.redirect
    return { status: 302, headers, body: undefined }
  }
  const body = internal.body
  let payload: string | undefined
  if (body === undefined) payload = undefined
  else if (typeof body === "string" && !String(headers["content-type"] ?? "").includes("application/json")) {
    payload = body
    // What a Web `Response` says of a string body with no type of its own.
    headers["content-type"] ??= "text/plain;charset=UTF-8"
  } else {
    headers["content-type"] ??= "application/json"
    payload = JSON.stringify(body)
  }
  const status = internal.status ?? 200
  // As the `Response` constructor refuses one (a RangeError the engine answers as a bug):
  // Node would write a 1xx or 6xx with a body, or throw from `writeHead` with no answer at all.
  if (!(status >= 200 && status <= 599)) throw new RangeError(`The status ${status} is not between 200 and 599`)
  return { status, headers, body: payload }
}

/** Headers of an internal response as one lower-cased record (`Set-Cookie` kept as a list). */
function plainHeaders(init: ResponseInternal["headers"]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {}
  if (!init) return out
  if (init instanceof Headers) {
    init.forEach((value, name) => {
      if (name !== "set-cookie") out[name] = value
    })
    const cookies = init.getSetCookie()
    if (cookies.length) out["set-cookie"] = cookies
    return out
  }
  const entries = Array.isArray(init) ? init : Object.entries(init)
  for (const [name, value] of entries) {
    const key = name!.toLowerCase()
    const existing = out[key]
    // As a Headers object combines a repeated name: comma-joined, cookies kept apart.
    if (key === "set-cookie") out[key] = [...((existing as string[] | undefined) ?? []), value!]
    else out[key] = existing === undefined ? value! : `${existing as string}, ${value!}`
  }
  return out
}


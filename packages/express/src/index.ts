/**
 * Portcullis for Express.
 *
 * Mount the middleware on the base path and read sessions with `getSession`:
 *
 * @example
 * ```ts
 * import express from "express"
 * import { ExpressAuth, getSession, type ExpressAuthConfig } from "@portcullis/express"
 * import Credentials from "@portcullis/core/providers/credentials"
 *
 * const authConfig: ExpressAuthConfig = { providers: [Credentials({ ... })] }
 * const app = express()
 * app.set("trust proxy", true) // behind a TLS-terminating proxy, so https is detected
 * app.use("/auth", ExpressAuth(authConfig))
 * app.get("/", async (req, res) => {
 *   const session = await getSession(req, authConfig)
 *   res.send(session ? `Hello ${session.user?.name}` : "Not signed in")
 * })
 * ```
 *
 * Express 4's `app.use("/auth/*", …)` and Express 5's `app.use("/auth/{*splat}", …)`
 * mounts work too; the base path is derived from the mount.
 * @module
 */
import { Readable } from "node:stream"
import type { IncomingMessage, ServerResponse } from "node:http"
import { Auth, type AuthConfig, type Session } from "@portcullis/core"

export type { Session } from "@portcullis/core"
export { AuthError, CredentialsSignin } from "@portcullis/core/errors"

/** Configuration of {@link ExpressAuth}: the core configuration. */
export type ExpressAuthConfig = Omit<AuthConfig, "raw">

/** The parts of an Express request this integration reads (Express 4 or 5). */
export interface ExpressLikeRequest extends IncomingMessage {
  protocol: string
  originalUrl: string
  baseUrl: string
  params?: Record<string, unknown>
  body?: unknown
  get(name: string): string | undefined
  host?: string
  app?: { get(setting: string): unknown }
}

/**
 * Middleware that answers every request under its mount path with `Auth()`.
 * It reads the raw body itself; if a body parser ran first, the parsed body is re-encoded.
 */
export function ExpressAuth(config: ExpressAuthConfig) {
  const perBasePath = new Map<string, AuthConfig>()
  return async (req: ExpressLikeRequest, res: ServerResponse, next: (err?: unknown) => void): Promise<void> => {
    try {
      const basePath = config.basePath ?? mountPath(req)
      let effective = perBasePath.get(basePath)
      if (!effective) {
        // One config object per mount, so core resolves it once and caches it.
        effective = { ...config, basePath }
        perBasePath.set(basePath, effective)
      }
      const response = await Auth(toWebRequest(req), effective)
      await sendWebResponse(res, response)
    } catch (error) {
      next(error)
    }
  }
}

/**
 * The session of an Express request, or `null`. Reads only the cookies; safe to call in
 * any route.
 */
export async function getSession(req: ExpressLikeRequest, config: ExpressAuthConfig): Promise<Session | null> {
  const basePath = config.basePath ?? "/auth"
  const url = new URL(`${basePath}/session`, originOf(req))
  const headers = new Headers()
  const cookie = req.headers.cookie
  if (cookie) headers.set("cookie", cookie)
  const response = await Auth(new Request(url, { headers }), { ...config, basePath })
  const data = await response.json().catch(() => null)
  if (response.status !== 200) throw new Error((data as { message?: string } | null)?.message ?? `Session request failed with ${response.status}`)
  return data && Object.keys(data).length ? (data as Session) : null
}

/** The mount path, without whatever a wildcard (`/auth/*`, `/auth/{*splat}`) captured. */
function mountPath(req: ExpressLikeRequest): string {
  const params = req.params ?? {}
  const captured = typeof params[0] === "string" ? params[0] : Array.isArray(params.splat) ? params.splat.join("/") : typeof params.splat === "string" ? params.splat : undefined
  let base = req.baseUrl || ""
  if (captured && base.endsWith(captured)) base = base.slice(0, base.length - captured.length)
  return base.replace(/\/+$/, "")
}

/**
 * The site origin as Express sees it. Protocol and host honour Express's `trust proxy`
 * setting, and the forwarded headers are then removed from what core sees, so Express
 * stays the one place that decides which proxy to believe.
 */
function originOf(req: ExpressLikeRequest): string {
  // Express compiles `trust proxy` into this function; ask it about the direct peer.
  const trust = req.app?.get("trust proxy fn") as ((addr: string | undefined, i: number) => boolean) | undefined
  const trusted = typeof trust === "function" && trust(req.socket?.remoteAddress, 0)
  const forwardedHost = trusted ? req.get("x-forwarded-host")?.split(",")[0]?.trim() : undefined
  const host = forwardedHost || req.get("host") || "localhost"
  return `${req.protocol}://${host}`
}

/**
 * The path and query of the request target. An absolute-form target
 * (`GET http://other.example/auth/… HTTP/1.1`) names a host of the sender's choosing, which
 * Express ignores (`req.hostname` reads `Host`); so does the origin core sees. Appended to
 * the origin as a string, a `//host/…` path stays a path.
 */
function pathOf(target: string): string {
  if (target.startsWith("/")) return target
  try {
    const url = new URL(target)
    return url.pathname + url.search
  } catch {
    return "/"
  }
}

const hopByHop = new Set(["x-forwarded-host", "x-forwarded-proto", "x-forwarded-for", "forwarded", "connection", "keep-alive", "transfer-encoding", "upgrade"])

function toWebRequest(req: ExpressLikeRequest): Request {
  const url = new URL(`${originOf(req)}${pathOf(req.originalUrl)}`)
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || hopByHop.has(name)) continue
    if (Array.isArray(value)) for (const v of value) headers.append(name, v)
    else headers.set(name, value)
  }
  const method = req.method ?? "GET"
  const init: RequestInit & { duplex?: "half" } = { method, headers }
  if (method !== "GET" && method !== "HEAD") {
    if (req.body !== undefined && req.readableEnded) {
      init.body = reencode(req.body, headers)
      headers.delete("content-length")
    } else {
      init.body = Readable.toWeb(req) as ReadableStream
      init.duplex = "half"
    }
  }
  return new Request(url, init)
}

/** A body a parser already consumed, encoded back the way its content type says. */
function reencode(body: unknown, headers: Headers): string {
  const type = headers.get("content-type") ?? ""
  if (type.includes("application/x-www-form-urlencoded") && body && typeof body === "object") {
    const params = new URLSearchParams()
    for (const [k, v] of Object.entries(body)) {
      if (Array.isArray(v)) for (const item of v) params.append(k, String(item))
      else if (v !== undefined && v !== null) params.append(k, String(v))
    }
    return params.toString()
  }
  if (typeof body === "string") return body
  headers.set("content-type", "application/json")
  return JSON.stringify(body ?? {})
}

async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status
  for (const [name, value] of response.headers) {
    if (name === "set-cookie") continue
    res.setHeader(name, value)
  }
  const cookies = response.headers.getSetCookie()
  if (cookies.length) res.setHeader("set-cookie", cookies)
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined
  res.end(body)
}

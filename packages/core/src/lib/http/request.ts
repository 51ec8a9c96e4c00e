import { InvalidRequest, MethodNotAllowed, RequestTooLarge, UnknownAction } from "../../errors.js"
import type { AuthAction } from "../../base-types.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { isLoopbackOrigin } from "../config/trusted-origins.js"
import { parseCookies } from "../cookies.js"
import { JSON_DEPTH_LIMIT, nestsWithin, readCapped } from "./body.js"
import { originFromHeaders } from "./host.js"
import { mediaTypeEssence } from "./media-type.js"
import { originKey } from "./origin-memo.js"

/** Largest request body accepted; auth forms are tiny, so this is generous. */
const BODY_LIMIT = 1024 * 1024

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "OPTIONS"

/**
 * Methods only an extension's routes answer (`from: "anywhere"` routes: SCIM); core's actions
 * answer GET and POST. `OPTIONS` is a CORS preflight, answered for `cors` routes (extensions/cors.ts).
 */
const EXTENSION_ONLY_METHODS: ReadonlySet<string> = new Set(["PUT", "PATCH", "DELETE", "OPTIONS"])

/** Which methods each action answers, and whether it takes a provider id segment. */
const routes: Record<AuthAction, { get: boolean; post: boolean; provider: "none" | "optional" | "required" }> = {
  providers: { get: true, post: false, provider: "none" },
  session: { get: true, post: true, provider: "none" },
  csrf: { get: true, post: false, provider: "none" },
  // Stryker disable next-line StringLiteral: "" is no mode the type allows (a compile error the checker's fast mode lets through), and at run time every mode but "none" and "required" already reads as optional.
  signin: { get: true, post: true, provider: "optional" },
  signout: { get: true, post: true, provider: "none" },
  callback: { get: true, post: true, provider: "required" },
  "verify-request": { get: true, post: false, provider: "none" },
  error: { get: true, post: false, provider: "none" },
  // Stryker disable next-line StringLiteral: as for signin, "" would act as "optional" does.
  "webauthn-options": { get: true, post: false, provider: "optional" },
  "two-factor": { get: true, post: true, provider: "none" },
  // Step-up re-authentication (lib/step-up/): its page, and the password posted to it.
  reauthenticate: { get: true, post: true, provider: "none" },
  // The password provider's steps: `/password/<step>` (signup, forgot, reset, verify, …).
  password: { get: true, post: true, provider: "required" },
  // Health checks (lib/health/): served only when `health.endpoint` is on.
  health: { get: true, post: false, provider: "none" },
}

/** Whether `action` is one of the actions Portcullis serves. */
export function isAuthAction(action: string): action is AuthAction {
  return Object.hasOwn(routes, action)
}

/** What an action needs to know about the request. */
export interface ParsedRequest {
  request: Request
  method: Method
  /** Core's action, or `"extension"`: a route of one of the configuration's extensions (`extension`). */
  action: AuthAction | "extension"
  providerId: string | undefined
  /** For `action: "extension"`: which extension, and the path's segments after its id (decoded). */
  extension?: { id: string; path: string[] }
  /** The request URL with the trusted origin. */
  url: URL
  /** The site's origin, from `AUTH_URL` or trusted headers. */
  origin: string
  /**
   * Whether `origin` may appear in URLs handed to third parties (mailboxes, the redirect
   * proxy): it came from `AUTH_URL` or `trustedOrigins`, not only from a `Host` header.
   */
  originTrusted: boolean
  headers: Headers
  cookies: Record<string, string>
  query: Record<string, string>
  body: Record<string, unknown> | undefined
  /**
   * A url-encoded body as sent, repeated names kept: `body` keeps only the last value,
   * and an OAuth form_post callback must refuse repeated parameters (RFC 6749 §3.1).
   */
  form?: URLSearchParams
}

/**
 * Reads the body of a Node request whose `request` was built without one
 * (`AuthRuntime.handleNode`, `lib/http/node.ts`): its bytes, at most `limit` of them, else
 * `tooLarge()` thrown. `parseRequest` calls it in place of reading `request.body`, with the
 * same limit and the same rules by content type.
 */
export type BodyReader = (limit: number, tooLarge: () => Error) => Promise<Uint8Array>

/**
 * Parse: URL → action and provider, then method, origin, cookies, query and body. A request
 * without a body (every GET) is parsed synchronously; only reading a body is awaited.
 * `nodeBody` reads the body of a Node request whose `request` was built without one.
 */
export function parseRequest(request: Request, config: ResolvedConfig, nodeBody?: BodyReader): ParsedRequest | Promise<ParsedRequest> {
  let url: URL
  try {
    url = new URL(request.url)
  } catch {
    throw new InvalidRequest("The request URL is not valid")
  }
  const { action, providerId, extension } = parseAction(url.pathname, config.basePath, config.extensions.byId)
  // Off by default: then the path is no action at all, as for any unknown name.
  if (action === "health" && !config.health.endpoint) throw new UnknownAction(`Unknown action. The health endpoint is off (health.endpoint)`)
  // A path under an extension's id answers GET and POST and takes no provider, as `session`
  // does (the table's entry is reused, not repeated); which method, the extension's routes say.
  const route = routes[extension ? "session" : action]
  const method = request.method.toUpperCase()
  const allowed = method === "GET" ? route.get : method === "POST" ? route.post : !!extension && EXTENSION_ONLY_METHODS.has(method)
  const providerGetOnSignin = action === "signin" && providerId && method === "GET"
  if (!allowed || providerGetOnSignin) {
    const methods = providerGetOnSignin ? "POST" : [route.get && "GET", route.post && "POST"].filter(Boolean).join(", ")
    const error = new MethodNotAllowed(`${method} is not allowed on ${action}${providerId ? "/<provider>" : ""}; use ${methods}`)
    ;(error as MethodNotAllowed & { allow?: string }).allow = methods
    throw error
  }
  if (route.provider === "none" && providerId) throw new UnknownAction(`The ${action} action takes no provider segment`)
  if (route.provider === "required" && !providerId) throw new UnknownAction(`The ${action} action needs a provider: ${action}/<provider>`)

  const { origin, trusted: originTrusted } = resolveOrigin(url, request.headers, config)
  const effectiveUrl = origin === url.origin ? url : new URL(url.pathname + url.search, origin)
  const headers = request.headers
  const parsed: ParsedRequest = {
    request,
    method: method as Method,
    action: extension ? "extension" : action,
    providerId,
    ...(extension && { extension }),
    url: effectiveUrl,
    origin,
    originTrusted,
    headers,
    cookies: parseCookies(headers.get("cookie")),
    query: url.search ? Object.fromEntries(url.searchParams) : {},
    body: undefined,
  }
  if (method === "GET" || method === "DELETE" || method === "OPTIONS") return parsed
  return readBody(request, parsed, !!extension, nodeBody).then((body) => {
    parsed.body = body
    return parsed
  })
}

function parseAction(pathname: string, basePath: string, extensions: ReadonlyMap<string, unknown>): { action: AuthAction; providerId?: string; extension?: { id: string; path: string[] } } {
  if (basePath && pathname !== basePath && !pathname.startsWith(`${basePath}/`)) {
    throw new UnknownAction(`The path is not under the base path ${basePath}`)
  }
  // Empty, or "/" and the rest: a base path has no trailing "/" (config/resolve.ts).
  const path = pathname.slice(basePath.length)
  // Most requests name one action and nothing else (`/session`): read it without splitting.
  // ("" and "/" give [""] here, no action, as the split would give none.)
  // Stryker disable next-line StringLiteral: indexOf("") finds a match at once, so the split below runs, and it gives the same segments.
  const slash = path.indexOf("/", 1)
  const segments = slash === -1 ? [path.slice(1)] : path.split("/").filter(Boolean)
  const [action, provider, ...rest] = segments
  // An extension's id, never one of core's actions (refused when configured: extensions/resolve.ts).
  if (action && extensions.has(action)) {
    try {
      return { action: action as AuthAction, extension: { id: action, path: segments.slice(1).map((s) => decodeURIComponent(s)) } }
    } catch {
      throw new InvalidRequest("The path is not valid percent-encoding")
    }
  }
  if (!action || !isAuthAction(action) || rest.length) {
    throw new UnknownAction(`Unknown action. Portcullis serves ${Object.keys(routes).join(", ")} under ${basePath || "/"}`)
  }
  let providerId: string | undefined
  if (provider !== undefined && provider !== "undefined") {
    try {
      providerId = decodeURIComponent(provider)
    } catch {
      throw new InvalidRequest("The provider segment is not valid percent-encoding")
    }
  }
  return { action, providerId }
}

/**
 * The site origin, and whether it is trusted (see `lib/origin-trust.ts`). `AUTH_URL` wins
 * and is trusted. Otherwise the request's own origin — or, with `trustHost`, the one a
 * proxy forwarded — is trusted when it is on `trustedOrigins` (or loopback outside production, with
 * `trustHost`); with `trustHost` an unlisted origin is still served, untrusted; without it
 * the request is refused. Both the Host the server saw and forwarded values go through
 * `originFromHeaders` (`host.ts`), so none can inject a path, userinfo, a bad port or an
 * unknown scheme into redirects.
 */
function resolveOrigin(url: URL, headers: Headers, config: ResolvedConfig): { origin: string; trusted: boolean } {
  if (config.siteUrl) return { origin: config.siteUrl.origin, trusted: true }
  // The answer depends on these four strings and the configuration only: remembered per configuration.
  return config.origins.get(originKey(`${url.protocol}//${url.host}`, headers), () =>
    originOf(url, headers.get("x-forwarded-host"), headers.get("x-forwarded-proto"), config),
  )
}

function originOf(url: URL, forwardedHost: string | null, forwardedProto: string | null, config: ResolvedConfig): { origin: string; trusted: boolean } {
  // The request URL already carries the Host the server saw; only a trusted proxy's
  // forwarded host may replace it.
  const origin = originFromHeaders({
    host: url.host,
    protocol: url.protocol,
    forwardedHost,
    forwardedProto,
    trustForwarded: config.trustHost,
  })
  if (config.trustedOrigins.has(origin)) return { origin, trusted: true }
  if (!config.trustHost) {
    throw new InvalidRequest(`The origin ${origin} is not one this site serves: it is not AUTH_URL nor in trustedOrigins`)
  }
  // Loopback is trusted for development only. In production a forged `Host: localhost:<port>`
  // would send a working token to whatever listens on that port of the clicker's device (on
  // a phone, any installed app may; on a shared machine, any other user): tokens are not
  // bound to the origin of the link that carried them.
  return { origin, trusted: config.env.NODE_ENV !== "production" && isLoopbackOrigin(origin) }
}

/** The body's fields; a url-encoded body is also kept as sent, in `into.form`. */
async function readBody(request: Request, into: { form?: URLSearchParams }, extension: boolean, nodeBody?: BodyReader): Promise<Record<string, unknown> | undefined> {
  const length = Number(request.headers.get("content-length"))
  const tooLarge = () => new RequestTooLarge(`The request body is over ${BODY_LIMIT} bytes`)
  if (length > BODY_LIMIT) throw tooLarge()
  const body = nodeBody ?? request.body
  if (!body) return undefined
  const contentType = request.headers.get("content-type")
  const essence = mediaTypeEssence(contentType)
  const bytes = nodeBody === undefined ? await readCapped(request.body!, BODY_LIMIT, tooLarge) : await nodeBody(BODY_LIMIT, tooLarge)
  if (!bytes.length) return undefined
  // An extension's protocol may name JSON with a type of its own (`application/scim+json`).
  if (essence === "application/json" || (extension && /^application\/[a-z0-9.-]+\+json$/.test(essence))) {
    let parsed: unknown
    try {
      parsed = JSON.parse(new TextDecoder().decode(bytes))
    } catch {
      throw new InvalidRequest("The JSON body does not parse")
    }
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new InvalidRequest("The JSON body must be an object")
    if (!nestsWithin(parsed, JSON_DEPTH_LIMIT)) throw new InvalidRequest(`The JSON body nests deeper than ${JSON_DEPTH_LIMIT} levels`)
    return parsed as Record<string, unknown>
  }
  if (essence === "application/x-www-form-urlencoded") {
    const form = new URLSearchParams(new TextDecoder().decode(bytes))
    into.form = form
    return Object.fromEntries(form)
  }
  // The boundary is a parameter of the header: with this essence the header is there.
  if (essence === "multipart/form-data" && contentType !== null) {
    try {
      const form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": contentType } }).formData()
      const out: Record<string, unknown> = {}
      form.forEach((value, key) => {
        if (typeof value === "string") out[key] = value
      })
      return out
    } catch {
      throw new InvalidRequest("The form body does not parse")
    }
  }
  // Any other type (text/plain included) is not a form: the body is ignored, not guessed at.
  return undefined
}


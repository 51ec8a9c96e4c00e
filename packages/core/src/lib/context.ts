import type { ProviderConfig } from "../providers/index.js"
import type { Cookie, CookiesOptions } from "../base-types.js"
import type { ResolvedConfig } from "./config/resolved.js"
import type { ParsedRequest } from "./http/request.js"
import { sameOriginUrl } from "./redirect.js"
import { clientAddress } from "./rate-limit/address.js"
import { noopEvent } from "./config/noop-event.js"
import type { AdapterSession, AdapterUser } from "../adapters.js"
import type { JWT } from "./jwt/types.js"

/**
 * A session row the session lane (`session/answers.ts`) began to read but did not answer
 * alone (missing, expired, due for extension, or the store failed): the full check takes
 * the outcome from here, so the store is asked once per request however it ends.
 */
export interface LookedUp {
  key: string
  reading: Promise<{ session: AdapterSession; user: AdapterUser } | null>
}

/**
 * A session cookie the session lane began to decrypt but did not answer alone (stale,
 * rotated, marked, or refused): the full check takes the outcome from here, so a token is
 * decrypted once per request however it ends.
 */
export interface Opening {
  raw: string
  opening: Promise<{ payload: JWT; rotated: boolean } | null>
}

/** Everything an action needs: the parsed request, the resolved config, and response cookies. */
export interface RequestContext extends ParsedRequest {
  config: ResolvedConfig
  /** Whether cookies are `Secure` (and prefixed). */
  secure: boolean
  cookieOptions: CookiesOptions
  /** Origin plus base path, e.g. `https://app.example/auth`. */
  authUrl: string
  /** Cookies collected by shared steps (CSRF, callback URL) for the response. */
  setCookies: Cookie[]
  /** Whether this request skips the double-submit CSRF check (`skipCSRFCheck`, or a framework form action). */
  skipCSRF: boolean
  /**
   * The client's address when one can be trusted (`rate-limit/address.ts`): the last
   * `X-Forwarded-For` entry under `trustHost`, else what the integration reported
   * (`HandleOptions.clientAddress`). Rate limits count against it; new sessions record it.
   */
  clientAddress: string | undefined
  /** The session row the session lane (`session/answers.ts`) already began to read. */
  lookedUp?: LookedUp
  /** The JWT the session lane already began to decrypt for this request. */
  opened?: Opening
}

export function createContext(parsed: ParsedRequest, config: ResolvedConfig, skipCSRF = false, peerAddress?: string): RequestContext {
  const secure = isSecure(config, parsed.origin)
  return {
    ...parsed,
    config,
    secure,
    cookieOptions: config.cookies(secure),
    authUrl: `${parsed.origin}${config.basePath}`,
    setCookies: [],
    skipCSRF,
    // New-device notices name the address too (`lib/notify/`), and so do audit events (`lib/audit/`).
    clientAddress: config.rateLimit || config.session.metadata || config.session.registry || config.notifications.newDevice || config.events.audit !== noopEvent ? clientAddress(parsed.headers, config.trustHost, peerAddress) : undefined,
  }
}

/** Whether cookies for requests from `origin` are `Secure` (and `__Secure-`/`__Host-` prefixed). */
export function isSecure(config: ResolvedConfig, origin: string): boolean {
  return config.useSecureCookies ?? origin.startsWith("https:")
}

/** Absolute sign-in and callback URLs of a provider. */
export function providerUrls(ctx: RequestContext, provider: Pick<ProviderConfig, "id">) {
  const id = encodeURIComponent(provider.id)
  return { signinUrl: `${ctx.authUrl}/signin/${id}`, callbackUrl: `${ctx.authUrl}/callback/${id}` }
}

/** The provider named in the URL, if configured. */
export function findProvider(ctx: RequestContext): ProviderConfig | undefined {
  return ctx.providerId === undefined ? undefined : ctx.config.providerById.get(ctx.providerId)
}

/**
 * Where to send the user when the flow ends: the `callbackUrl` of the body or query, else
 * the one remembered in the callback-url cookie, else the site root — always passed
 * through the `redirect` callback. A value that is not a string or not a URL is ignored
 * rather than failing the request.
 */
export async function resolveCallbackUrl(ctx: RequestContext, opts: { remember?: boolean } = {}): Promise<string> {
  const { callbacks } = ctx.config
  const baseUrl = ctx.origin
  const fromRequest = pickString(ctx.body?.callbackUrl) ?? pickString(ctx.query.callbackUrl)
  const cookieName = ctx.cookieOptions.callbackUrl.name
  const candidate = fromRequest ?? ctx.cookies[cookieName]
  let url = baseUrl
  let usable = false
  if (candidate !== undefined) {
    const parsed = sameOriginUrl(candidate, baseUrl) ?? (isAbsoluteHttpUrl(candidate) ? candidate : undefined)
    if (parsed !== undefined) url = await callbacks.redirect({ url: parsed, baseUrl })
    usable = parsed !== undefined
  }
  if (typeof url !== "string" || /[\r\n]/.test(url)) url = baseUrl
  if (opts.remember && usable && fromRequest !== undefined && ctx.cookies[cookieName] !== url && !ctx.setCookies.some((c) => c.name === cookieName)) {
    ctx.setCookies.push({ name: cookieName, value: url, options: ctx.cookieOptions.callbackUrl.options })
  }
  return url
}

/** Whether the request names a `callbackUrl` (query or body). */
export function carriesCallbackUrl(ctx: RequestContext): boolean {
  return pickString(ctx.body?.callbackUrl) !== undefined || pickString(ctx.query.callbackUrl) !== undefined
}

function pickString(value: unknown): string | undefined {
  return typeof value === "string" && value ? value : undefined
}

function isAbsoluteHttpUrl(value: string): boolean {
  try {
    const u = new URL(value)
    return u.protocol === "http:" || u.protocol === "https:"
  } catch {
    return false
  }
}

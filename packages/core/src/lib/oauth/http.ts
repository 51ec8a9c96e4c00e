import { InvalidEndpoints } from "../../errors.js"
import { readCapped } from "../http/body.js"

/** How long one back-channel request may take unless the provider sets `timeout`. */
const DEFAULT_TIMEOUT = 10_000

/**
 * Largest back-channel response body read. Discovery documents, key sets, token and
 * userinfo responses are a few kilobytes; a provider that streams megabytes is broken or
 * hostile, and must not be able to exhaust memory.
 */
const RESPONSE_LIMIT = 1024 * 1024

/** A back-channel request was refused or failed before a usable response arrived. */
export class BackChannelError extends Error {
  constructor(
    message: string,
    readonly code: "insecure-url" | "too-large" | "redirect-status",
  ) {
    super(message)
    this.name = "BackChannelError"
  }
}

/** Whether `hostname` (as `URL.hostname` spells it) is this machine. */
export function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname)
}

/**
 * Which provider endpoints may be plain `http:`. In development (`NODE_ENV` is
 * `"development"` or `"test"`, as `next dev`, Vite and Vitest set it) any host may, as in
 * Auth.js (a local Keycloak on `http://keycloak:8080`). Loopback hosts may whenever
 * `NODE_ENV` is not `"production"` (unset included: `node server.js` on a laptop against
 * a local Keycloak, as Auth.js's examples do), because traffic to this machine never
 * crosses a network an attacker could sit on; in production only with
 * `allowInsecureLoopback`.
 *
 * An unset or unrecognised `NODE_ENV` counts as production for every other host: a Worker
 * has no `process.env` at all, and `node server.js` in a container rarely sets it, so "not
 * production" would open plain http on exactly the deployments that forgot to say what
 * they are.
 */
export interface HttpPolicy {
  /** In development: `http:` is allowed on any host (a warning is logged per provider). */
  development: boolean
  /** `http:` is allowed on loopback hosts (a warning is logged per provider). */
  loopback: boolean
  allowInsecureLoopback: boolean | undefined
}

/** `NODE_ENV` values that say "this is not a deployment". */
const developmentEnvs: ReadonlySet<string | undefined> = new Set(["development", "test"])

/** The policy of a provider in an environment. */
export function httpPolicy(env: { NODE_ENV?: string | undefined }, allowInsecureLoopback: boolean | undefined): HttpPolicy {
  return { development: developmentEnvs.has(env.NODE_ENV), loopback: !!allowInsecureLoopback || env.NODE_ENV !== "production", allowInsecureLoopback }
}

/** Whether `policy` lets any `http:` endpoint through (oauth4webapi's `allowInsecureRequests`). */
export function allowsHttp(policy: HttpPolicy): boolean {
  return policy.development || policy.loopback
}

/**
 * Provider endpoints must be https (RFC 6749 §3.1), except as {@link HttpPolicy} allows;
 * any other scheme is refused outright. Throws `InvalidEndpoints` saying what to do.
 */
export function assertSecureUrl(url: URL, policy: HttpPolicy, what: string): void {
  if (url.protocol === "https:") return
  if (url.protocol !== "http:") throw new InvalidEndpoints(`The ${what} must be an https URL, got the scheme ${JSON.stringify(url.protocol)}`)
  if (policy.development) return
  if (policy.loopback && isLoopback(url.hostname)) return
  throw new InvalidEndpoints(
    `The ${what} ${url.origin} is not https. Outside development (NODE_ENV=development or test; unset counts as production) providers must use https; only a provider on this machine (localhost, 127.0.0.1, [::1]) may use http, and in production only with allowInsecureLoopback: true.`,
  )
}

/**
 * Wraps the provider's fetch for back-channel requests: https only (see
 * {@link assertSecureUrl}), a timeout covering headers and body, redirects never followed
 * (a token endpoint answering `302 → http://169.254.169.254/` gets a 302, not metadata), and
 * a body cap. The result is a plain `Response` with the body already buffered.
 */
export function backChannelFetch(
  base: typeof fetch,
  options: { timeout?: number; policy: HttpPolicy },
): typeof fetch {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    assertSecureUrl(url, options.policy, "endpoint")
    const deadline = AbortSignal.timeout(timeout)
    const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline
    const response = await base(input, { ...init, redirect: "manual", signal })
    // Browsers hide manual redirects behind status 0; Node shows the 3xx. Neither is usable.
    if (response.status === 0 || response.type === "opaqueredirect") {
      throw new BackChannelError(`${url.origin} answered with a redirect`, "redirect-status")
    }
    const body = await readResponse(response)
    const nullBody = [101, 204, 205, 304].includes(response.status)
    return new Response(nullBody ? null : (body as Uint8Array<ArrayBuffer>), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    })
  }
}

async function readResponse(response: Response): Promise<Uint8Array> {
  const tooLarge = () => new BackChannelError(`The response is larger than ${RESPONSE_LIMIT} bytes`, "too-large")
  if (Number(response.headers.get("content-length")) > RESPONSE_LIMIT) {
    await response.body?.cancel().catch(() => {})
    throw tooLarge()
  }
  return response.body ? readCapped(response.body, RESPONSE_LIMIT, tooLarge) : new Uint8Array()
}

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
function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(hostname)
}

/**
 * Provider endpoints must be https (RFC 6749 §3.1). Plain http is allowed only on loopback
 * and only when the provider opts in with `allowInsecureLoopback` (local development).
 */
export function assertSecureUrl(url: URL, allowInsecureLoopback: boolean | undefined, what: string): void {
  if (url.protocol === "https:") return
  if (url.protocol === "http:" && allowInsecureLoopback && isLoopback(url.hostname)) return
  throw new InvalidEndpoints(`The ${what} ${url.origin} is not https. Only loopback hosts may use http, with allowInsecureLoopback: true.`)
}

/**
 * Wraps the provider's fetch for back-channel requests: https only (see
 * {@link assertSecureUrl}), a timeout covering headers and body, redirects never followed
 * (a token endpoint answering `302 → http://169.254.169.254/` gets a 302, not metadata), and
 * a body cap. The result is a plain `Response` with the body already buffered.
 */
export function backChannelFetch(
  base: typeof fetch,
  options: { timeout?: number; allowInsecureLoopback?: boolean },
): typeof fetch {
  const timeout = options.timeout ?? DEFAULT_TIMEOUT
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    assertSecureUrl(url, options.allowInsecureLoopback, "endpoint")
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

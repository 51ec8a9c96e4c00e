import { createActionURL, type AuthAction } from "@portcullis/core"
import { InvalidCallbackUrl } from "@portcullis/core/errors"

type Env = Record<string, string | undefined>

/**
 * The absolute URL of an auth action for a request whose only trace is its headers (Server
 * Components and Server Actions have no URL). `AUTH_URL` wins; otherwise the host and
 * `X-Forwarded-Proto` that Next's server puts on every request. Whether those headers may
 * be believed is core's decision (`trustHost`), made when the URL reaches `Auth()`.
 *
 * @throws InvalidRequest when `Host` or `X-Forwarded-*` is malformed (core's syntax check).
 */
export function actionURL(action: AuthAction, headers: Headers, config: { basePath: string }, env: Env = process.env): URL {
  return createActionURL(action, defaultProtocol(headers), headers, env, config)
}

/** Without `X-Forwarded-Proto`: plain http only on the loopback, https everywhere else. */
function defaultProtocol(headers: Headers): string {
  const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? ""
  return /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i.test(host) ? "http" : "https"
}

/**
 * `redirectTo` of the server `signIn`/`signOut` must be a path on this site. Absolute URLs
 * are refused outright rather than compared by origin: the origin a server action sees is
 * only as good as its headers, and a path needs no such trust.
 */
export function assertRelativePath(redirectTo: string): string {
  if (!isRelativePath(redirectTo)) {
    throw new InvalidCallbackUrl(`redirectTo must be a path starting with "/", got ${JSON.stringify(redirectTo.slice(0, 100))}`)
  }
  return redirectTo
}

/** A path on this site: one leading slash, and nothing a browser reads as another host (`//`, `/\`). */
export function isRelativePath(value: string): boolean {
  return value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") && !/[\u0000-\u001f]/.test(value)
}

/** The path of `referer` when it is on `origin`; anything else is not a place to return to. */
export function refererPath(referer: string | null, origin: string): string | undefined {
  if (!referer) return undefined
  try {
    const url = new URL(referer)
    return url.origin === origin ? url.pathname + url.search + url.hash : undefined
  } catch {
    return undefined
  }
}

/**
 * The default `redirect` callback: only same-origin targets pass; anything else falls back
 * to the site's base URL.
 *
 * Targets are resolved with the WHATWG URL parser against the base and compared by
 * origin — never by string prefix — so `//evil.example`, `/\evil.example`,
 * `https:evil.example`, `javascript:…` and userinfo tricks all land on the base URL.
 */
export function defaultRedirect({ url, baseUrl }: { url: string; baseUrl: string }): string {
  return sameOriginUrl(url, baseUrl) ?? baseUrl
}

/** `url` resolved against `baseUrl` when it stays on the same origin, else `undefined`. */
export function sameOriginUrl(url: unknown, baseUrl: string): string | undefined {
  if (typeof url !== "string" || !url || url.length > 8192) return undefined
  try {
    const base = new URL(baseUrl)
    const target = new URL(url, base)
    if (target.origin !== base.origin) return undefined
    // A relative target ("/dashboard") stays relative to the site root, as Auth.js does.
    return target.href
  } catch {
    return undefined
  }
}

import type { Cookie, CookieSerializeOptions, CookiesOptions, PartialCookiesOptions } from "../base-types.js"

/**
 * Browsers cap a cookie (name, value and attributes) at 4096 bytes. Values longer than
 * this many characters are split; the margin leaves room for the name and attributes.
 */
const CHUNK_SIZE = 4096 - 160

const MAX_AGE_LIMIT = 400 * 24 * 60 * 60 // RFC 6265bis caps Max-Age at 400 days
const tokenChars = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/ // RFC 7230 token: a valid cookie name
const unsafeAttr = /[;\r\n]/

/**
 * The default cookies: the names Auth.js v5 uses, so a migrated app keeps its users signed
 * in. On https they take the `__Secure-` prefix, and the CSRF and sign-up cookies the stricter `__Host-`.
 */
export function defaultCookies(secure: boolean): CookiesOptions {
  const prefix = secure ? "__Secure-" : ""
  const base = { httpOnly: true, sameSite: "lax" as const, path: "/", secure }
  return {
    sessionToken: { name: `${prefix}authjs.session-token`, options: { ...base } },
    callbackUrl: { name: `${prefix}authjs.callback-url`, options: { ...base } },
    csrfToken: { name: `${secure ? "__Host-" : ""}authjs.csrf-token`, options: { ...base } },
    pkceCodeVerifier: { name: `${prefix}authjs.pkce.code_verifier`, options: { ...base, maxAge: 900 } },
    state: { name: `${prefix}authjs.state`, options: { ...base, maxAge: 900 } },
    nonce: { name: `${prefix}authjs.nonce`, options: { ...base, maxAge: 900 } },
    webauthnChallenge: { name: `${prefix}authjs.challenge`, options: { ...base, maxAge: 900 } },
    twoFactorChallenge: { name: `${prefix}portcullis.two-factor`, options: { ...base, maxAge: 300 } },
    twoFactorDevice: { name: `${prefix}portcullis.two-factor-device`, options: { ...base } },
    knownDevice: { name: `${prefix}portcullis.known-device`, options: { ...base } },
  }
}

/** Lays the app's overrides over the defaults, cookie by cookie. */
export function mergeCookies(defaults: CookiesOptions, overrides: PartialCookiesOptions | undefined): CookiesOptions {
  if (!overrides) return defaults
  const out = { ...defaults }
  for (const key of Object.keys(defaults) as (keyof CookiesOptions)[]) {
    const o = overrides[key]
    if (!o) continue
    out[key] = { name: o.name ?? defaults[key].name, options: { ...defaults[key].options, ...o.options } }
  }
  return out
}

/**
 * Parses a `Cookie` header. The first occurrence of a name wins (browsers send the most
 * specific path first). Malformed percent-escapes keep the raw value instead of throwing.
 */
export function parseCookies(header: string | null): Record<string, string> {
  const out: Record<string, string> = Object.create(null)
  if (!header) return out
  let start = 0
  const len = header.length
  while (start < len) {
    let end = header.indexOf(";", start)
    if (end === -1) end = len
    const eq = header.indexOf("=", start)
    if (eq !== -1 && eq < end) {
      const name = header.slice(start, eq).trim()
      if (name && !(name in out)) out[name] = cookieText(header.slice(eq + 1, end))
    }
    start = end + 1
  }
  return out
}

/**
 * `parseCookies(header)[name]` without building the record: the first cookie called `name`,
 * its value read the same way. For the session check, which needs one cookie.
 */
export function cookieValue(header: string, name: string): string | undefined {
  let start = 0
  const len = header.length
  while (start < len) {
    let end = header.indexOf(";", start)
    if (end === -1) end = len
    const eq = header.indexOf("=", start)
    if (eq !== -1 && eq < end && header.slice(start, eq).trim() === name) return cookieText(header.slice(eq + 1, end))
    start = end + 1
  }
  return undefined
}

/** A cookie's value as sent: trimmed, one pair of quotes removed, percent-decoding undone when it is valid. */
function cookieText(sent: string): string {
  let value = sent.trim()
  if (value.length > 1 && value.charCodeAt(0) === 34 && value.charCodeAt(value.length - 1) === 34) {
    value = value.slice(1, -1)
  }
  // Stryker disable next-line StringLiteral: includes("") is always true, and decoding a value with no "%" gives it back unchanged (it cannot throw).
  if (value.includes("%")) {
    try {
      value = decodeURIComponent(value)
    } catch {
      // keep the raw value: a malformed cookie must not fail the request
    }
  }
  return value
}

/**
 * Serialises a `Set-Cookie` value. Refuses what would let a value smuggle attributes, and
 * enforces the rules the `__Host-`/`__Secure-` prefixes promise so a misconfiguration fails
 * loudly instead of the browser silently dropping the cookie.
 */
export function serializeCookie(name: string, value: string, options: CookieSerializeOptions = {}): string {
  if (!tokenChars.test(name)) throw new TypeError(`Invalid cookie name: ${name}`)
  if (name.startsWith("__Host-") && (!options.secure || options.path !== "/" || options.domain)) {
    throw new TypeError(`Cookie ${name} needs Secure, Path=/ and no Domain (the __Host- prefix rules)`)
  }
  if (name.startsWith("__Secure-") && !options.secure) {
    throw new TypeError(`Cookie ${name} needs the Secure attribute (the __Secure- prefix rule)`)
  }
  let str = `${name}=${encodeURIComponent(value)}`
  if (options.maxAge !== undefined) {
    const maxAge = Math.min(Math.floor(options.maxAge), MAX_AGE_LIMIT)
    str += `; Max-Age=${maxAge}`
  }
  if (options.domain) {
    if (unsafeAttr.test(options.domain)) throw new TypeError("Invalid cookie domain")
    str += `; Domain=${options.domain}`
  }
  if (options.path) {
    if (unsafeAttr.test(options.path)) throw new TypeError("Invalid cookie path")
    str += `; Path=${options.path}`
  }
  if (options.expires) str += `; Expires=${options.expires.toUTCString()}`
  if (options.httpOnly) str += "; HttpOnly"
  if (options.secure) str += "; Secure"
  if (options.partitioned) str += "; Partitioned"
  if (options.priority) str += `; Priority=${options.priority[0]!.toUpperCase()}${options.priority.slice(1)}`
  if (options.sameSite) {
    const s = options.sameSite === true ? "Strict" : options.sameSite
    str += `; SameSite=${s[0]!.toUpperCase()}${s.slice(1)}`
  }
  return str
}

/** A cookie that deletes `name` (same attributes, empty value, `Max-Age=0`). */
export function expireCookie(name: string, options: CookieSerializeOptions): Cookie {
  const { expires: _e, maxAge: _m, ...rest } = options
  return { name, value: "", options: { ...rest, maxAge: 0 } }
}

const chunkSuffix = /\.(\d{1,3})$/

/** Names of the request cookies that hold (chunks of) `name`, in order. */
function chunkNames(cookies: Record<string, string>, name: string): { plain: boolean; chunks: string[] } {
  const chunks: [number, string][] = []
  for (const key in cookies) {
    if (!key.startsWith(name)) continue
    const m = chunkSuffix.exec(key.slice(name.length))
    if (m && m.index === 0) chunks.push([Number(m[1]), key])
  }
  chunks.sort((a, b) => a[0] - b[0])
  return { plain: name in cookies, chunks: chunks.map((c) => c[1]) }
}

/**
 * Reads a value that may be split over `name.0`, `name.1`, …. Chunks must run from 0
 * without gaps; anything else is treated as no value rather than stitched together.
 */
export function readChunked(cookies: Record<string, string>, name: string): string | undefined {
  const { plain, chunks } = chunkNames(cookies, name)
  if (chunks.length) {
    let value = ""
    for (let i = 0; i < chunks.length; i++) {
      if (chunks[i] !== `${name}.${i}`) return plain ? cookies[name] || undefined : undefined
      value += cookies[chunks[i]!]
    }
    return value || undefined
  }
  return plain ? cookies[name] || undefined : undefined
}

/**
 * Whether the request carries `name` or any chunk of it. With {@link readChunked} this
 * tells "no session" (nothing sent) from "an unreadable session" (pieces sent that do not
 * assemble: a gap, an empty value), which must be deleted or the browser resends it forever.
 */
export function hasChunked(cookies: Record<string, string>, name: string): boolean {
  const { plain, chunks } = chunkNames(cookies, name)
  return plain || chunks.length > 0
}

/**
 * Cookies that store `value` under `name`, split into chunks when long, and delete every
 * stale piece the browser still holds (a shrunk session leaves no orphan chunks behind).
 */
export function writeChunked(
  cookies: Record<string, string>,
  name: string,
  value: string,
  options: CookieSerializeOptions,
): Cookie[] {
  const out: Cookie[] = []
  const written = new Set<string>()
  if (value.length <= CHUNK_SIZE) {
    out.push({ name, value, options })
    written.add(name)
  } else {
    for (let i = 0, n = 0; i < value.length; i += CHUNK_SIZE, n++) {
      const chunkName = `${name}.${n}`
      out.push({ name: chunkName, value: value.slice(i, i + CHUNK_SIZE), options })
      written.add(chunkName)
    }
  }
  const { plain, chunks } = chunkNames(cookies, name)
  const stale = (plain ? [name, ...chunks] : chunks).filter((n) => !written.has(n))
  for (const s of stale) out.push(expireCookie(s, options))
  return out
}

/** Deletion cookies for `name` and every chunk of it the browser sent. */
export function clearChunked(cookies: Record<string, string>, name: string, options: CookieSerializeOptions): Cookie[] {
  const { chunks } = chunkNames(cookies, name)
  const names = [name, ...chunks]
  return names.map((n) => expireCookie(n, options))
}

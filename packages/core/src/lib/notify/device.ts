/**
 * The device behind a request, for notices: browser and operating system read from the
 * `User-Agent` (display only, nothing is decided on them), and the `knownDevice` cookie that
 * says which accounts have signed in on this browser before.
 * @module
 */
import type { Cookie } from "../../base-types.js"
import type { RequestContext } from "../context.js"
import { sha256Hex } from "../crypto.js"
import { decodeWith, encodeWith } from "../jwt/codec.js"
import { clientInfo } from "../session/client-info.js"
import { KNOWN_DEVICE_MAX_AGE, type NoticeDevice } from "./options.js"

/** Browsers, most specific first: Edge and Opera say "Chrome" too, Chrome says "Safari". */
const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(?:e|A|iOS)?\//, "Edge"],
  [/\b(?:OPR|Opera)\//, "Opera"],
  [/\bSamsungBrowser\//, "Samsung Internet"],
  [/\b(?:Firefox|FxiOS)\//, "Firefox"],
  [/\b(?:Chrome|CriOS|Chromium)\//, "Chrome"],
  [/\bVersion\/[\d.]+.*\bSafari\//, "Safari"],
]

const SYSTEMS: readonly [RegExp, string][] = [
  [/\b(?:iPhone|iPad|iPod)\b/, "iOS"],
  [/\bAndroid\b/, "Android"],
  [/\bCrOS\b/, "ChromeOS"],
  [/\bWindows\b/, "Windows"],
  [/\bMac OS X\b|\bMacintosh\b/, "macOS"],
  [/\bLinux\b/, "Linux"],
]

/**
 * The browser and system names of a `User-Agent`, from a fixed list: what a notice shows
 * is one of these names, never the header itself, so a forged agent cannot write into the
 * email.
 */
export function describeAgent(userAgent: string | null): { browser: string | null; os: string | null } {
  if (!userAgent) return { browser: null, os: null }
  const browser = BROWSERS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null
  const os = SYSTEMS.find(([pattern]) => pattern.test(userAgent))?.[1] ?? null
  return { browser, os }
}

/** The device of a request: its agent, the names read from it, and the client address. */
export function deviceOf(ctx: Pick<RequestContext, "headers" | "config" | "clientAddress">): NoticeDevice {
  const { userAgent, ipAddress } = clientInfo(ctx)
  return { userAgent, ...describeAgent(userAgent), ipAddress }
}

/** Accounts one browser remembers; the oldest is forgotten first (a shared computer). */
const MAX_ACCOUNTS = 10

/** What the cookie holds per account: a digest of its id, so the list stays short whatever ids look like. */
async function accountMark(userId: string): Promise<string> {
  return (await sha256Hex(`portcullis-known-device:${userId}`)).slice(0, 24)
}

/**
 * Whether this browser has signed in to `userId` before, and the cookie that remembers it
 * from now on (with `userId` moved to the newest place, and its lifetime renewed). A cookie
 * that does not open — absent, expired, from another site's secret, forged — remembers nobody.
 */
export async function knownDevice(ctx: RequestContext, userId: string): Promise<{ known: boolean; cookie: Cookie }> {
  const { name, options } = ctx.cookieOptions.knownDevice
  const raw = ctx.cookies[name]
  const payload = raw ? await decodeWith<{ accounts?: unknown; exp?: unknown }>(ctx.config.keys, { token: raw, secret: ctx.config.secrets, salt: name }).catch(() => null) : null
  // The codec opens a token without looking at its expiry: a copied old cookie counts for nothing.
  const fresh = !!payload && typeof payload.exp === "number" && payload.exp * 1000 > Date.now()
  const accounts = fresh && Array.isArray(payload.accounts) ? payload.accounts.filter((a): a is string => typeof a === "string") : []
  const mark = await accountMark(userId)
  const known = accounts.includes(mark)
  const remembered = [...accounts.filter((a) => a !== mark), mark].slice(-MAX_ACCOUNTS)
  const value = await encodeWith(ctx.config.keys, { token: { accounts: remembered }, secret: ctx.config.secrets, salt: name, maxAge: KNOWN_DEVICE_MAX_AGE })
  const cookie = { name, value, options: { ...options, maxAge: KNOWN_DEVICE_MAX_AGE, expires: new Date(Date.now() + KNOWN_DEVICE_MAX_AGE * 1000) } }
  return { known, cookie }
}

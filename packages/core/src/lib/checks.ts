import { InvalidCheck } from "../errors.js"
import { decodeWith, encodeWith } from "./jwt/codec.js"
import type { Cookie, CookiesOptions } from "../base-types.js"
import type { RequestContext } from "./context.js"
import { expireCookie } from "./cookies.js"

/** Cookies that carry a value across a redirect round trip (OAuth checks, WebAuthn challenge). */
export type CheckName = keyof Pick<CookiesOptions, "state" | "pkceCodeVerifier" | "nonce" | "webauthnChallenge">

/** How long a sign-in round trip may take. */
export const CHECK_MAX_AGE = 15 * 60

/**
 * Seals `value` into an encrypted, 15-minute cookie bound to `providerId`. The key is
 * derived with the cookie's name as salt, so a sealed state can never pass as a session
 * or a PKCE verifier. The value is never logged.
 */
export async function sealCheck(
  ctx: RequestContext,
  name: CheckName,
  value: string,
  providerId: string,
  extra: { sameSiteNone?: boolean; data?: Record<string, unknown> } = {},
): Promise<Cookie> {
  const cookie = ctx.cookieOptions[name]
  const sealed = await encodeWith(ctx.config.keys, {
    token: { value, provider: providerId, ...extra.data },
    secret: ctx.config.secrets,
    salt: cookie.name,
    maxAge: CHECK_MAX_AGE,
  })
  const options = {
    ...cookie.options,
    maxAge: CHECK_MAX_AGE,
    expires: new Date(Date.now() + CHECK_MAX_AGE * 1000),
    // form_post responses arrive as cross-site POSTs, which Lax cookies do not follow.
    ...(extra.sameSiteNone && { sameSite: "none" as const, secure: true }),
  }
  return { name: cookie.name, value: sealed, options }
}

/**
 * Opens a check cookie for `providerId` and queues its deletion (single use). Throws
 * {@link InvalidCheck} when it is missing, expired, tampered or made for another provider.
 */
export async function openCheck(
  ctx: RequestContext,
  name: CheckName,
  providerId: string,
): Promise<{ value: string; data: Record<string, unknown> }> {
  const cookie = ctx.cookieOptions[name]
  const raw = ctx.cookies[cookie.name]
  ctx.setCookies.push(expireCookie(cookie.name, cookie.options))
  if (!raw) throw new InvalidCheck(`The ${name} cookie is missing (it expires after 15 minutes, and must come from the same browser)`)
  const payload = await decodeWith<Record<string, unknown>>(ctx.config.keys, { token: raw, secret: ctx.config.secrets, salt: cookie.name }).catch(() => null)
  if (!payload || typeof payload.value !== "string" || !payload.value) throw new InvalidCheck(`The ${name} cookie could not be opened`)
  if (payload.provider !== providerId) throw new InvalidCheck(`The ${name} cookie was made for another provider`)
  return { value: payload.value, data: payload }
}

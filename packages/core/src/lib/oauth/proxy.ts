import { UntrustedHost } from "../../errors.js"
import { decodeWith, encodeWith } from "../jwt/codec.js"
import { CHECK_MAX_AGE } from "../checks.js"
import type { RequestContext } from "../context.js"
import type { OAuthRuntime } from "./provider.js"

/**
 * Redirect proxy (`redirectProxyUrl`): preview deployments on changing origins share one
 * redirect URI registered with the provider, served by a stable "proxy" deployment with
 * the same secret.
 *
 * 1. The preview starts the sign-in with `redirect_uri` = the proxy's callback, and a
 *    state that is an encrypted `{ value, origin }`, `origin` being the preview's own
 *    callback URL. Its state cookie holds that exact string.
 * 2. The provider sends the browser to the proxy, which decrypts the state and bounces
 *    the browser, with all parameters, to `origin`.
 * 3. The preview finishes: its state cookie must equal the state parameter, and the token
 *    request repeats the proxy's `redirect_uri`.
 *
 * Two locks keep the authorization code from being bounced to an origin of an attacker's
 * choosing. The preview seals only a trusted origin (`AUTH_URL` or its `trustedOrigins`),
 * never one taken from a forgeable `Host` header (`oauth/checks.ts`); and the proxy bounces
 * only to origins on its own `trustedOrigins`, so even a state sealed by a misconfigured
 * deployment sharing the secret cannot send a code elsewhere. The state is encrypted with
 * the shared secret, so it cannot be forged without it.
 */
const SALT = "portcullis.redirect-proxy-state"

/** Seals a state value together with the callback URL the proxy must return to. */
export function sealProxyState(ctx: RequestContext, random: string, origin: string): Promise<string> {
  return encodeWith(ctx.config.keys, { token: { value: random, origin }, secret: ctx.config.secrets, salt: SALT, maxAge: CHECK_MAX_AGE })
}

/**
 * On the proxy deployment: where to bounce this callback, or `undefined` when the
 * sign-in started here (or the state is not a proxy state, so the usual checks decide).
 */
export async function proxyTarget(ctx: RequestContext, rt: OAuthRuntime, params: URLSearchParams): Promise<string | undefined> {
  if (!rt.proxy?.onProxy) return undefined
  const states = params.getAll("state")
  if (states.length !== 1) return undefined
  const payload = await decodeWith<{ origin?: unknown }>(ctx.config.keys, { token: states[0]!, secret: ctx.config.secrets, salt: SALT }).catch(() => null)
  if (typeof payload?.origin !== "string") return undefined
  let target: URL
  try {
    target = new URL(payload.origin)
  } catch {
    return undefined
  }
  // Only ever to a callback of this same provider, over http(s), on another origin.
  const ownPath = `/callback/${encodeURIComponent(rt.id)}`
  if ((target.protocol !== "https:" && target.protocol !== "http:") || !target.pathname.endsWith(ownPath)) return undefined
  if (target.origin === ctx.origin) return undefined
  if (!ctx.config.trustedOrigins.has(target.origin)) {
    throw new UntrustedHost(
      `The redirect proxy refused to send an authorization code to ${target.origin}: it is not in trustedOrigins. ` +
        `List the preview deployments' origins there (AUTH_TRUSTED_ORIGINS), e.g. "https://myapp-*-myteam.vercel.app".`,
    )
  }
  target.search = params.toString()
  return target.href
}

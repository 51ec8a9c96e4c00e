import { UntrustedHost } from "../errors.js"
import { isLoopbackOrigin } from "./config/trusted-origins.js"
import type { RequestContext } from "./context.js"

/**
 * Origin trust, enforced here (the model is written up in `docs/security.md`).
 *
 * Every request has a site origin (`ctx.origin`, from `lib/http/request.ts`) and knows
 * whether it is *trusted*: it came from `AUTH_URL`, or the request's origin is on
 * `trustedOrigins` (exact or one-label wildcard; the platform's deployment URLs join it),
 * or it is a loopback origin outside production. With `trustHost` alone the origin is whatever `Host` /
 * `X-Forwarded-Host` said, which whoever sends the request chooses.
 *
 * The rule: a host-derived origin may shape only what goes back to the requester itself —
 * a redirect, a page, the `redirect_uri` the provider checks against its registrations,
 * a WebAuthn ceremony the requester's own browser runs. Anything handed to a third party
 * who will act on it for someone else needs a trusted origin:
 *
 * - a sign-in link mailed to an address (the mailbox owner clicks it: a forged host would
 *   send their token to the forger) — {@link requireTrustedOrigin} in `kinds/email.ts`;
 * - the origin sealed into a redirect-proxy state (the proxy bounces the victim's
 *   authorization code to it) — `oauth/checks.ts`; and on the proxy, the bounce target
 *   must be on its own `trustedOrigins` — `oauth/proxy.ts`.
 */
export function requireTrustedOrigin(ctx: RequestContext, purpose: string): string {
  if (ctx.originTrusted) return ctx.origin
  throw new UntrustedHost(
    `${purpose} needs a trusted origin, and ${ctx.origin} comes only from the request's Host header, which anyone can forge. ` +
      `Set AUTH_URL to the site's URL, or list the origin in trustedOrigins (AUTH_TRUSTED_ORIGINS).`,
  )
}

/**
 * An untrusted loopback origin exists only in production (in development loopback is
 * trusted), where no real browser reaches the site as `localhost`: it is a forged `Host` or
 * `X-Forwarded-Host`. Production OAuth clients often still list a development redirect URI
 * on localhost, and whatever listens on that port of the victim's device (an app on a
 * phone, another user of a shared machine) would catch the victim's code for the attacker
 * to redeem here under the same forged host. So OAuth refuses such an origin outright.
 */
export function refuseForgedLoopback(ctx: RequestContext): void {
  if (ctx.originTrusted || !isLoopbackOrigin(ctx.origin)) return
  throw new UntrustedHost(
    `An OAuth sign-in on the loopback origin ${ctx.origin} is refused in production: no browser reaches a deployed site there, so the Host was forged. ` +
      `Set AUTH_URL (or trustedOrigins) if this deployment really is served on ${ctx.origin}.`,
  )
}

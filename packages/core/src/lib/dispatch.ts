import type { AuthAction, ResponseInternal } from "../base-types.js"
import { callback } from "./actions/callback.js"
import { csrf } from "./actions/csrf.js"
import { errorPage, verifyRequestPage } from "./actions/pages.js"
import { providers } from "./actions/providers.js"
import { session } from "./actions/session.js"
import { signin } from "./actions/signin.js"
import { signout } from "./actions/signout.js"
import { carriesCallbackUrl, resolveCallbackUrl, type RequestContext } from "./context.js"

const handlers: Record<AuthAction | "extension", (ctx: RequestContext) => Promise<ResponseInternal>> = {
  callback,
  csrf,
  error: errorPage,
  providers,
  session,
  signin,
  signout,
  "verify-request": verifyRequestPage,
  // Loaded on first use: only configurations with a passkey provider ever answer it.
  // Loaded on first use: only configurations with two-factor authentication answer it.
  "two-factor": async (ctx) => (await import("./actions/two-factor.js")).twoFactor(ctx),
  // Step-up re-authentication: only sensitive actions send anyone there.
  reauthenticate: async (ctx) => (await import("./actions/reauthenticate.js")).reauthenticate(ctx),
  "webauthn-options": async (ctx) => (await import("./actions/webauthn-options.js")).webauthnOptions(ctx),
  // Likewise only configurations with a password provider.
  password: async (ctx) => (await import("./actions/password.js")).password(ctx),
  // Only configurations with `health.endpoint` serve it (refused in parsing otherwise).
  health: async (ctx) => (await import("./actions/health.js")).health(ctx.config),
  // A route of one of the configuration's extensions (lib/extensions/): its module is loaded
  // once per configuration and then called directly (see `ResolvedExtensions.action`).
  extension: extensionRoute,
}

async function extensionRoute(ctx: RequestContext): Promise<ResponseInternal> {
  const extensions = ctx.config.extensions
  const loading = (extensions.action ??= import("./extensions/handle.js").then(
    (m) => m.extensionAction as (ctx: never) => Promise<unknown>,
    (error: unknown) => {
      // A failed load is not kept: the next request tries again.
      extensions.action = undefined
      throw error
    },
  ))
  const action = (await loading) as unknown as (ctx: RequestContext) => Promise<ResponseInternal>
  return action(ctx)
}

/**
 * Act: one handler per action; each checks what it needs (CSRF on state changes).
 *
 * As in Auth.js, a `callbackUrl` on any request (passed through the `redirect` callback) is
 * remembered in the callback-url cookie, so a later step that carries none — a custom
 * sign-in form posting only its fields — still lands where the user was going.
 */
export async function dispatch(ctx: RequestContext): Promise<ResponseInternal> {
  // Best effort: a throwing redirect callback fails the step that redirects, not this one.
  // Not for a health probe: it answers no browser, and sets and reads no cookie.
  if (ctx.action !== "health" && carriesCallbackUrl(ctx)) await resolveCallbackUrl(ctx, { remember: true }).catch((e) => ctx.config.logger.error(e as Error))
  return handlers[ctx.action](ctx)
}

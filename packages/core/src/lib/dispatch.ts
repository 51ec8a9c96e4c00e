import type { AuthAction, ResponseInternal } from "../base-types.js"
import { callback } from "./actions/callback.js"
import { csrf } from "./actions/csrf.js"
import { errorPage, verifyRequestPage } from "./actions/pages.js"
import { providers } from "./actions/providers.js"
import { session } from "./actions/session.js"
import { signin } from "./actions/signin.js"
import { signout } from "./actions/signout.js"
import { webauthnOptions } from "./actions/webauthn-options.js"
import type { RequestContext } from "./context.js"

const handlers: Record<AuthAction, (ctx: RequestContext) => Promise<ResponseInternal>> = {
  callback,
  csrf,
  error: errorPage,
  providers,
  session,
  signin,
  signout,
  "verify-request": verifyRequestPage,
  "webauthn-options": webauthnOptions,
}

/** Act: one handler per action; each checks what it needs (CSRF on state changes). */
export function dispatch(ctx: RequestContext): Promise<ResponseInternal> {
  return handlers[ctx.action](ctx)
}

import { InvalidProvider } from "../../errors.js"
import type { ResponseInternal } from "../../base-types.js"
import { kindFor } from "../kinds/index.js"
import { findProvider, type RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { signinPage } from "./pages.js"

/**
 * `GET /signin` renders the sign-in page (or redirects to `pages.signIn`).
 * `POST /signin/:provider` (CSRF-checked) starts that provider's flow; providers that
 * sign in through their own form (credentials, passkeys) are sent to the page. `POST /signin`
 * with `email` (CSRF-checked) is the identifier-first page's first step: the page again,
 * at its second step.
 */
export async function signin(ctx: RequestContext): Promise<ResponseInternal> {
  if (ctx.method === "GET") return signinPage(ctx)
  await verifyCsrf(ctx)
  const provider = findProvider(ctx)
  if (ctx.providerId !== undefined && !provider) {
    throw new InvalidProvider(`No provider with id ${JSON.stringify(ctx.providerId)}`)
  }
  const start = provider && (await kindFor(ctx.config.kinds, provider))?.signin
  // The identifier-first page's first step posts `email` here, without a provider.
  if (ctx.providerId === undefined && ctx.config.theme.layout !== "authjs" && typeof ctx.body?.email === "string") return signinPage(ctx, ctx.body.email)
  // As Auth.js: to the sign-in page as it is; a `callbackUrl` the POST carried is in the
  // callback-url cookie by now (dispatch), and the page reads it from there.
  if (!provider || !start) return { redirect: `${ctx.authUrl}/signin` }
  return start(ctx)
}

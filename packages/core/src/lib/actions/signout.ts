import type { ResponseInternal } from "../../base-types.js"
import { resolveCallbackUrl, type RequestContext } from "../context.js"
import { verifyCsrf } from "../csrf.js"
import { sessionStrategy } from "../session/index.js"
import { clearOnSignOut } from "../step-up/sign-in.js"
import { signoutPage } from "./pages.js"

/**
 * `GET /signout` only renders a confirmation (a GET never changes state, so an
 * `<img src=/auth/signout>` cannot sign anyone out). `POST /signout` (CSRF-checked) ends the
 * session, deletes its cookies and redirects to the callback URL. When the store cannot
 * delete the session, it throws `ServiceUnavailable` before any cookie is touched: the user
 * lands on the error page still signed in, and can retry.
 */
export async function signout(ctx: RequestContext): Promise<ResponseInternal> {
  if (ctx.method === "GET") return signoutPage(ctx)
  await verifyCsrf(ctx)
  await clearOnSignOut(ctx)
  const cookies = await sessionStrategy(ctx).destroy(ctx)
  return { redirect: await resolveCallbackUrl(ctx), cookies }
}

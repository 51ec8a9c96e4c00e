/**
 * `req.browser` (`api.ts`): a value bound to the browser across a round trip through another
 * site, in core's sealed check cookie (the `state` cookie, as an OAuth sign-in's state is):
 * encrypted under the configuration's secret, bound to the extension and the flow's name,
 * 15 minutes, deleted when opened. Loaded with `import()` on first use.
 * @module
 */
import { InvalidConfig } from "../../errors.js"
import type { RequestContext } from "../context.js"
import { openCheck, sealCheck } from "../checks.js"

const FLOW = /^[a-z][a-z0-9-]{0,31}$/
const MAX_VALUE = 512

/** What the cookie is bound to: never a configured provider's id (`x:` cannot start one's check). */
const boundTo = (extensionId: string, flow: string) => {
  if (!FLOW.test(flow)) throw new InvalidConfig(`The ${extensionId} extension named a browser-bound flow ${JSON.stringify(flow)}: use a-z, 0-9 and -`)
  return `x:${extensionId}:${flow}`
}

export async function bind(ctx: RequestContext, extensionId: string, flow: string, value: string): Promise<void> {
  if (typeof value !== "string" || !value || value.length > MAX_VALUE) throw new InvalidConfig(`The ${extensionId} extension bound an empty or overlong value to the browser`)
  ctx.setCookies.push(await sealCheck(ctx, "state", value, boundTo(extensionId, flow)))
}

export async function bound(ctx: RequestContext, extensionId: string, flow: string): Promise<string | null> {
  const name = boundTo(extensionId, flow)
  if (!ctx.cookies[ctx.cookieOptions.state.name]) return null
  try {
    return (await openCheck(ctx, "state", name)).value
  } catch {
    // Missing, expired, tampered, or another flow's: all the same answer, none of them this browser's trip.
    return null
  }
}

/**
 * `req.accountSections()`: the sections the configuration's extensions add to the account
 * center (`Extension.accountSection`), asked the way banners are (`handle.ts`) — each with
 * its own `locals`, catalog and session key — but failing one by one: the account page is
 * where a person goes to lock things down, so one extension's outage never takes it away.
 * @module
 */
import type { RequestContext } from "../context.js"
import { asOutage } from "../errors.js"
import { report } from "../report.js"
import { SafeHtml } from "../pages/html.js"
import type { ExtensionAccountSectionEntry } from "./api.js"
import type { ResolvedExtension } from "./shapes.js"
import { toolsFor } from "./tools.js"

/**
 * The sections of the request's configuration, in configuration order; `[]` when signed out.
 * `csrfToken` is the request's (one token per request, however many forms ask for it).
 */
export async function accountSections(ctx: RequestContext, csrfToken: () => Promise<string>): Promise<ExtensionAccountSectionEntry[]> {
  const asking = [...ctx.config.extensions.byId.values()].filter((e) => typeof e.extension.accountSection === "function")
  const answers = await Promise.all(asking.map((resolved) => sectionOf(ctx, resolved, csrfToken)))
  return answers.filter((entry): entry is ExtensionAccountSectionEntry => entry !== undefined)
}

async function sectionOf(ctx: RequestContext, resolved: ResolvedExtension, csrfToken: () => Promise<string>): Promise<ExtensionAccountSectionEntry | undefined> {
  const { id } = resolved.extension
  const tools = toolsFor(ctx, resolved)
  // Core's own session read: its outage is the page's (503), not this section's.
  const session = await tools.session()
  if (!session) return undefined
  try {
    const asked = Promise.resolve().then(() => resolved.extension.accountSection!({ session, locals: resolved.locals, t: tools.t, locale: tools.locale, authUrl: tools.authUrl, csrfToken }))
    const shown = await bounded(asked, 2 * ctx.config.adapterTimeout, id)
    if (shown === undefined) return undefined
    // Checked here, so a section built from a string (unescaped) is the extension's bug, named in the log.
    if (typeof shown?.heading !== "string" || !shown.heading || !(shown.body instanceof SafeHtml)) {
      throw new TypeError(`The ${id} extension's accountSection answered something other than { heading: string, body: html\`…\` }`)
    }
    return { id, heading: shown.heading, body: shown.body }
  } catch (error) {
    // An outage through its wrapped store is counted as that store's; anything else is a bug, logged with its stack.
    report(ctx.config, asOutage(error))
    return { id, unavailable: true }
  }
}

/**
 * `answer`, or a failure once `ms` passed (`0`: unbounded, as `adapterTimeout: false`). A
 * wrapped store's calls are bounded already; this bounds the rest (a fetch without a
 * timeout), so a section that never answers costs its place, not the page. Two store calls'
 * bound: room for a section that reads twice.
 */
function bounded<T>(answer: Promise<T>, ms: number, id: string): Promise<T> {
  if (!ms) return answer
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`The ${id} extension's accountSection did not answer within ${ms} ms`)), ms)))
  return Promise.race([answer, late]).finally(() => clearTimeout(timer))
}

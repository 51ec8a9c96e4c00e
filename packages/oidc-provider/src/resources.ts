/**
 * RFC 8707 resource indicators: what a client may name as the audience of its tokens.
 * @module
 */
import type { Client } from "./clients.js"
import { OAuthError } from "./errors.js"
import type { Locals } from "./locals.js"

/** The resources asked, each an absolute URI without a fragment that the client may use; else `invalid_target`. */
export function resourcesOf(asked: string[], client: Client, locals: Locals): string[] {
  const allowed = client.resources ?? locals.options.resources
  for (const r of asked) {
    let url: URL | undefined
    try {
      url = new URL(r)
    } catch {}
    if (!url || url.hash) throw new OAuthError("invalid_target", "resource must be an absolute URI without a fragment")
    if (!allowed.includes(r)) throw new OAuthError("invalid_target", `resource ${r} is not allowed for this client`)
  }
  return [...new Set(asked)]
}

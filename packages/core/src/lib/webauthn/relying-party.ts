import type { WebAuthnConfig } from "../../providers/webauthn.js"
import type { RequestContext } from "../context.js"

/** The relying party of one request: what new ceremonies use, and what responses must match. */
export interface ResolvedRelyingParty {
  /** RP id put into new options. */
  id: string
  name: string
  /** RP ids a response's `rpIdHash` may match. */
  ids: string[]
  /** Origins a response's `clientDataJSON.origin` may equal, exactly. */
  origins: string[]
}

function list(value: string | string[] | undefined): string[] {
  if (value === undefined) return []
  return (Array.isArray(value) ? value : [value]).filter((v) => typeof v === "string" && v !== "")
}

/**
 * Each part comes from the provider's `relayingParty` when set, else from the site origin
 * (`AUTH_URL`, or the host the config trusts) — never from an unvalidated header, since
 * the expected origin is what stops a phishing site from relaying a ceremony.
 */
export function relyingParty(ctx: RequestContext, provider: WebAuthnConfig): ResolvedRelyingParty {
  const site = new URL(ctx.origin)
  const configured = provider.relayingParty ?? {}
  const ids = list(configured.id)
  const origins = list(configured.origin)
  if (!ids.length) ids.push(site.hostname)
  if (!origins.length) origins.push(site.origin)
  return { id: ids[0]!, name: list(configured.name)[0] ?? site.host, ids, origins }
}

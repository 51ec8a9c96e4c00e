import { InvalidConfig } from "../../errors.js"
import type { WebAuthnConfig, WebAuthnHookOptions, WebAuthnHookRequest } from "./provider-types.js"
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
 * The app's `getRelayingParty(options, request)` when it has one (Auth.js's hook), checked:
 * a non-empty `id` without scheme or path, a `name`, and an `origin` that is exactly an
 * http(s) origin — anything else is a configuration error, not a ceremony against garbage.
 * Otherwise each part comes from the provider's `relayingParty` when set, else from the
 * site origin (`AUTH_URL`, or the host the config trusts) — never from an unvalidated
 * header, since the expected origin is what stops a phishing site from relaying a ceremony.
 */
export async function relyingParty(ctx: RequestContext, provider: WebAuthnConfig): Promise<ResolvedRelyingParty> {
  if (typeof provider.getRelayingParty === "function") {
    const answer: unknown = await provider.getRelayingParty(hookOptions(ctx, provider), hookRequest(ctx))
    const { id, name, origin } = (answer ?? {}) as Record<string, unknown>
    const problem = typeof id !== "string" || !id || /[/:\s]/.test(id) ? "id" : typeof name !== "string" ? "name" : !isOrigin(origin) ? "origin" : undefined
    if (problem) {
      throw new InvalidConfig(`getRelayingParty of the WebAuthn provider "${provider.id}" returned an invalid ${problem}: expected { id: "example.com", name, origin: "https://example.com" }`)
    }
    return { id: id as string, name: name as string, ids: [id as string], origins: [origin as string] }
  }
  const site = new URL(ctx.origin)
  const configured = provider.relayingParty ?? {}
  const ids = list(configured.id)
  const origins = list(configured.origin)
  if (!ids.length) ids.push(site.hostname)
  if (!origins.length) origins.push(site.origin)
  return { id: ids[0]!, name: list(configured.name)[0] ?? site.host, ids, origins }
}

function isOrigin(value: unknown): value is string {
  if (typeof value !== "string" || !URL.canParse(value)) return false
  const url = new URL(value)
  return (url.protocol === "https:" || url.protocol === "http:") && url.origin === value
}

/** What the WebAuthn hooks get about the configuration. */
export function hookOptions(ctx: RequestContext, provider: WebAuthnConfig): WebAuthnHookOptions {
  return { provider, url: new URL(ctx.authUrl), basePath: ctx.config.basePath, adapter: ctx.config.adapter }
}

/** What the WebAuthn hooks get about the request (copies: a hook cannot change the request). */
export function hookRequest(ctx: RequestContext): WebAuthnHookRequest {
  return {
    url: new URL(ctx.url),
    method: ctx.method,
    headers: new Headers(ctx.headers),
    query: { ...ctx.query },
    body: ctx.body && { ...ctx.body },
    cookies: { ...ctx.cookies },
  }
}

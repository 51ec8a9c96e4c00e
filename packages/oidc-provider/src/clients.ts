/**
 * Finding a client (the configuration's, else the store's registered ones) and matching its
 * redirect URIs: exact string comparison, with the one exception RFC 8252 §7.3 makes — a
 * native app's loopback redirect URI may name any port.
 * @module
 */
import type { ConfiguredClient } from "./options.js"
import { isLoopback } from "./options.js"
import type { OidcProviderStore } from "./store/types.js"

/**
 * A client as the routes see it. `serves` (the resources it is the resource server for) is
 * a static client's only: `introspect` reads it from the configuration, never from a
 * store's record.
 */
export type Client = ConfiguredClient

/** The client `clientId`, or `null`: static ones first, then the store (dynamically registered). */
export async function findClient(clients: Map<string, Client>, store: OidcProviderStore, clientId: string): Promise<Client | null> {
  if (typeof clientId !== "string" || !clientId || clientId.length > 200) return null
  return clients.get(clientId) ?? (await store.getClient(clientId))
}

/** Whether `uri` is one of `registered`, exactly (a loopback `http` URI may differ in its port only). */
export function redirectUriAllowed(registered: readonly string[], uri: string): boolean {
  if (registered.includes(uri)) return true
  let asked: URL
  try {
    asked = new URL(uri)
  } catch {
    return false
  }
  if (asked.protocol !== "http:" || !isLoopback(asked.hostname) || asked.hash || asked.username || asked.password) return false
  return registered.some((r) => {
    let reg: URL
    try {
      reg = new URL(r)
    } catch {
      return false
    }
    if (reg.protocol !== "http:" || !isLoopback(reg.hostname)) return false
    // Everything but the port must be the same string (no normalisation tricks).
    const strip = (u: URL) => `${u.protocol}//${u.hostname}${u.pathname}${u.search}`
    return strip(reg) === strip(asked) && withoutPort(r) === withoutPort(uri)
  })
}

/** The URI's text with its port removed, so only the port may differ. */
function withoutPort(uri: string): string {
  return uri.replace(/^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::\d+)?/, "$1")
}

/** Whether the client may use `grantType`. */
export function allowsGrant(client: Client, grantType: string): boolean {
  return (client.grantTypes as string[]).includes(grantType)
}

/**
 * A SAML connection's service provider for one request: its entity ID and assertion
 * consumer service URL (under the app's auth URL), the shared store for single use, and the
 * configuration's clock skew.
 * @module
 */
import type { ExtensionTools } from "@portcullis/core/extension"
import type { SsoLocals } from "./locals.js"
import { serviceProvider } from "./saml/index.js"
import type { Connection } from "./store/types.js"

/** The SP's entity ID for a connection: its metadata URL (give the IdP this one URL). */
export const samlEntityId = (authUrl: string, connection: Pick<Connection, "id">) => `${authUrl}/sso/saml/${encodeURIComponent(connection.id)}`
/** Where the IdP posts its response. */
export const samlAcsUrl = (authUrl: string, connection: Pick<Connection, "id">) => `${samlEntityId(authUrl, connection)}/acs`

export function samlFor(call: Pick<ExtensionTools, "authUrl"> & { locals: SsoLocals }, connection: Connection) {
  return serviceProvider(connection, {
    store: call.locals.store,
    spEntityId: samlEntityId(call.authUrl, connection),
    acsUrl: samlAcsUrl(call.authUrl, connection),
    // Published in the SP metadata only when the IdP has single logout too.
    ...(connection.saml?.sloUrl && { sloUrl: `${samlEntityId(call.authUrl, connection)}/slo` }),
    clockSkewSeconds: call.locals.clockSkew,
  })
}

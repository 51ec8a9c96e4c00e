/**
 * The token endpoint's grants by `grant_type`: adding one (the device grant) is one file and
 * one entry here.
 * @module
 */
import type { ExtensionRequest } from "@portcullis/core/extension"
import type { Client } from "../clients.js"
import type { Locals } from "../locals.js"
import { authorizationCode } from "./authorization-code.js"
import { clientCredentials } from "./client-credentials.js"
import { refreshToken } from "./refresh-token.js"

/** What a grant handler gets: the authenticated client, the form, the issuer. */
export interface GrantContext {
  req: ExtensionRequest<Locals>
  locals: Locals
  client: Client
  body: Record<string, string | undefined>
  issuer: string
}

/** A grant's answer: the token response's JSON (RFC 6749 §5.1). */
export type GrantHandler = (ctx: GrantContext) => Promise<Record<string, unknown>>

export const grants: Readonly<Record<string, GrantHandler>> = {
  authorization_code: authorizationCode,
  refresh_token: refreshToken,
  client_credentials: clientCredentials,
}

/**
 * What a grant handler of the token endpoint is.
 * @module
 */
import type { ExtensionRequest } from "@portcullis/core/extension"
import type { Client } from "../clients.js"
import type { Locals } from "../locals.js"

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


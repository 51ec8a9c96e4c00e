import { InvalidProvider } from "../../errors.js"
import type { ResponseInternal } from "../../base-types.js"
import { kindFor } from "../kinds/index.js"
import { findProvider, type RequestContext } from "../context.js"

/** `GET /webauthn-options/:provider`: registration or authentication options for a passkey. */
export async function webauthnOptions(ctx: RequestContext): Promise<ResponseInternal> {
  const provider = findProvider(ctx) ?? ctx.config.providers.find((p) => p.type === "webauthn")
  const options = provider?.type === "webauthn" ? (await kindFor(ctx.config.kinds, provider))?.options : undefined
  if (!provider || !options) throw new InvalidProvider("No WebAuthn provider is configured")
  await ctx.config.rateLimit?.checkAddress("webauthnOptions", ctx.clientAddress)
  return options(ctx)
}

import { InvalidProvider } from "../../errors.js"
import type { ResponseInternal } from "../../base-types.js"
import { kindFor } from "../kinds/index.js"
import { findProvider, type RequestContext } from "../context.js"

/** `/callback/:provider`: hands over to the provider's kind. */
export async function callback(ctx: RequestContext): Promise<ResponseInternal> {
  const provider = findProvider(ctx)
  if (!provider) throw new InvalidProvider(`No provider with id ${JSON.stringify(ctx.providerId)}`)
  const kind = await kindFor(ctx.config.kinds, provider)
  if (!kind) throw new InvalidProvider(`Providers of type ${provider.type} are not supported`)
  return kind.callback(ctx)
}

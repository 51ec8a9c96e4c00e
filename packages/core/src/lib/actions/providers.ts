import type { PublicProvider, ResponseInternal } from "../../base-types.js"
import { providerUrls, type RequestContext } from "../context.js"

/** `GET /providers`: the client-safe view of every provider (no secrets, no endpoints). */
export async function providers(ctx: RequestContext): Promise<ResponseInternal<Record<string, PublicProvider>>> {
  const body: Record<string, PublicProvider> = {}
  for (const p of ctx.config.providers) {
    body[p.id] = { id: p.id, name: p.name, type: p.type, ...providerUrls(ctx, p) }
  }
  return { headers: { "Content-Type": "application/json", "Cache-Control": "no-store" }, body }
}

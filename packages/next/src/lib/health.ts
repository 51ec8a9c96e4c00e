import { health as coreHealth, type HealthCheckOptions, type HealthReport } from "@portcullis/core/integration"
import { appFor, type NextAuthConfigInput } from "./config.js"

/**
 * How the app's stores answer, on the app's runtime, for load balancers and Kubernetes
 * probes (docs/observability.md, "Health checks"): one read of each store, each within the
 * timeout. Never throws. Or turn on `health: { endpoint: true }` for `GET <basePath>/health`.
 *
 * @example
 * ```ts
 * // app/ready/route.ts
 * import { health } from "@/auth"
 *
 * export async function GET() {
 *   const report = await health()
 *   return Response.json(report, { status: report.status === "down" ? 503 : 200, headers: { "Cache-Control": "no-store" } })
 * }
 * ```
 */
export type Health = (options?: HealthCheckOptions) => Promise<HealthReport>

export function createHealth(input: NextAuthConfigInput): Health {
  return async (options) => coreHealth((await appFor(input, undefined)).runtime, options)
}

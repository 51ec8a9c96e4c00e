import type { ResponseInternal } from "../../base-types.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { checkHealth } from "../health/check.js"
import type { HealthReport } from "../health/shared.js"

/** No cache may keep a report: a probe must see the stores as they are (core's own cache is one second). */
const headers = { "Content-Type": "application/json", "Cache-Control": "no-store" }

/**
 * `GET <basePath>/health` (with `health.endpoint`): the shared report — one run of the probes
 * at a time, reused for a second — with 200 when `ok` or `degraded` and 503 when `down`, the
 * statuses load balancers and Kubernetes probes act on. Reads no cookie, writes none, and
 * says nothing of any user.
 */
export async function health(config: ResolvedConfig): Promise<ResponseInternal<HealthReport>> {
  const report = await config.health.shared.get(() => checkHealth(config, config.health.timeout))
  return { status: report.status === "down" ? 503 : 200, headers, body: report }
}

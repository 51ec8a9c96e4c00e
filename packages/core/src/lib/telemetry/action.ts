/**
 * The span and duration of one request (`AuthRuntime`'s entry): `portcullis <action>`, with
 * the method, the path without its query (a callback's query carries codes and state), the
 * action and the provider's id. Only called when the configuration's telemetry is active.
 * @module
 */
import type { ResponseInternal } from "../../base-types.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { isAuthAction } from "../http/request.js"
import { errorType, failed, SpanKind, SpanStatusCode, trace, type Attributes, type Telemetry } from "./index.js"

/** Runs `answer` for `request` inside its action span, and records its duration. */
export async function tracedAction<T extends Response | Pick<ResponseInternal, "status" | "redirect">>(
  config: Pick<ResolvedConfig, "telemetry" | "basePath" | "providerById">,
  request: Request,
  answer: () => Promise<T>,
): Promise<T> {
  const { telemetry, basePath } = config
  const started = performance.now()
  const path = pathOf(request.url)
  const [segment, second] = path?.startsWith(basePath) ? path.slice(basePath.length).split("/").filter(Boolean) : []
  // Names from the path only when they are ours: a client chooses the path, and a metric
  // label or span attribute per made-up action would let it flood the backend.
  const action = segment !== undefined && isAuthAction(segment) ? segment : "unknown"
  const method = request.method.toUpperCase()
  const attributes: Attributes = { "http.request.method": method === "GET" || method === "POST" ? method : "_OTHER", "portcullis.action": action }
  if (path !== undefined) attributes["url.path"] = path
  if (second !== undefined && config.providerById.has(second)) attributes["portcullis.provider"] = second
  try {
    return await telemetry.span(`portcullis ${action}`, SpanKind.INTERNAL, attributes, async (span) => {
      const response = await answer()
      if (span) {
        // A Node answer (`handleNode`) has its final status; an internal one may be a redirect.
        const status = response instanceof Response ? response.status : (response.status ?? (response.redirect ? 302 : 200))
        span.setAttribute("http.response.status_code", status)
        if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
      }
      return response
    })
  } finally {
    if (telemetry.metering) telemetry.actionDuration(action, (performance.now() - started) / 1000)
  }
}

/**
 * Notes on the active action span why its request was refused (the error's type). Only
 * `fault` (an outage, a bug) makes it an error: a wrong password is an answer, not a failure
 * of the service, and alerts on span errors should not fire on every mistyped password.
 */
export function refused(telemetry: Telemetry, error: unknown, fault: boolean): void {
  if (!telemetry.tracing) return
  const span = trace.getActiveSpan()
  if (!span) return
  if (fault) failed(span, error)
  else span.setAttribute("error.type", errorType(error))
}

function pathOf(url: string): string | undefined {
  try {
    return new URL(url).pathname
  } catch {
    return undefined
  }
}

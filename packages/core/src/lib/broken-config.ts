/**
 * What a configuration that cannot work answers (`AuthRuntime`, before any action): its
 * health report to a load balancer's probe when the endpoint is on, else the error page or
 * a JSON error — logged every time. Loaded only for such a configuration: one that works
 * never needs this code.
 * @module
 */
import type { ResponseInternal } from "../base-types.js"
import type { ResolvedConfig } from "./config/resolved.js"
import { configErrorResponse } from "./errors.js"
import { toResponse } from "./http/response.js"

/** The answer of a configuration with `problem` to `request`: the internal response when `raw`. */
export async function brokenConfigAnswer(config: ResolvedConfig, request: Request, problem: Error, raw: boolean): Promise<Response | ResponseInternal> {
  return (await brokenHealth(config, request, problem, raw)) ?? configError(config, request, problem, raw)
}

/**
 * A health probe of a configuration that cannot work, when the endpoint is on: the report
 * (`down`, 503, the problem's type) a load balancer reads, not the error page. Logged as
 * every request of a broken configuration is: the report names the problem's type only,
 * and the operator reading it finds the message and stack in the log.
 */
async function brokenHealth(config: ResolvedConfig, request: Request, problem: Error, raw: boolean): Promise<Response | ResponseInternal | undefined> {
  if (!config.health.endpoint || request.method.toUpperCase() !== "GET") return undefined
  const url = safeUrl(request.url)
  if (!url || url.pathname.replace(/\/+$/, "") !== `${config.basePath}/health`) return undefined
  config.logger.error(problem)
  const internal = await (await import("./actions/health.js")).health(config)
  return raw ? { ...internal, cookies: [] } : toResponse(internal, [], false)
}

/** The answer of a configuration that cannot work (logged): the error page, or a JSON error. */
function configError(config: ResolvedConfig, request: Request, problem: Error, raw: boolean): Response | ResponseInternal {
  config.logger.error(problem)
  const url = safeUrl(request.url)
  const internal = configErrorResponse(config, {
    action: url && actionOf(url, config.basePath),
    method: request.method.toUpperCase(),
    origin: config.siteUrl?.origin ?? url?.origin,
    callbackUrl: url?.searchParams.get("callbackUrl"),
    pathname: url?.pathname,
  })
  const cookies = internal.cookies ?? []
  return raw ? { ...internal, cookies } : toResponse(internal, cookies, request.headers.has("x-auth-return-redirect"))
}

function safeUrl(url: string): URL | undefined {
  try {
    return new URL(url)
  } catch {
    return undefined
  }
}

function actionOf(url: URL, basePath: string): string | undefined {
  const path = url.pathname
  return path.startsWith(basePath) ? path.slice(basePath.length).split("/").filter(Boolean)[0] : undefined
}

/**
 * The server functions of a configuration's extensions, bound to one request
 * (`AuthRuntime.extensionFunctions`, through `@portcullis/core/integration`'s
 * `extensionFunctions` in every integration). Loaded on use: only configurations with
 * extensions call it.
 * @module
 */
import type { ResolvedConfig } from "../config/resolved.js"
import { createContext, type RequestContext } from "../context.js"
import { refuseCrossSite, verifyCsrf } from "../csrf.js"
import { asOutage } from "../errors.js"
import { parseRequest, type ParsedRequest } from "../http/request.js"
import { report } from "../report.js"
import type { ExtensionTools } from "./api.js"
import type { ResolvedExtension } from "./shapes.js"

/**
 * The functions by extension id. The request's context is built when a function is first
 * touched; a change (any method but `GET`/`HEAD`) another site sent is refused then, and one
 * with a posted token is held to the double-submit check before any function runs.
 */
export function extensionFunctions(
  resolved: ResolvedConfig,
  request: { origin: string; headers: Headers; method?: string; csrfToken?: string },
  options: { skipCSRF: boolean; clientAddress?: string | undefined },
): Record<string, unknown> {
  // Set by the extensions' resolver once loaded (awaited above): the tools of a call, typed as `tools.ts` declares them.
  const toolsFor = resolved.extensions.toolsFor as unknown as (ctx: RequestContext, extension: ResolvedExtension) => ExtensionTools
  const out: Record<string, unknown> = {}
  let ctx: RequestContext | undefined
  // A change with a posted token is checked as core checks its own forms (double submit);
  // every change is refused when another site sent it. Awaited before each function runs.
  let checked: Promise<void> | undefined
  const context = () => {
    if (ctx) return ctx
    const headers = new Headers()
    for (const name of ["cookie", "user-agent", "origin", "sec-fetch-site", "x-forwarded-for", "accept-language"]) {
      const value = request.headers.get(name)
      if (value) headers.set(name, value)
    }
    // A request with no body parses synchronously (`parseRequest`).
    const parsed = parseRequest(new Request(`${request.origin}${resolved.basePath}/session`, { headers }), resolved) as ParsedRequest
    ctx = createContext(parsed, resolved, options.skipCSRF, options.clientAddress)
    const method = (request.method ?? "GET").toUpperCase()
    if (method !== "GET" && method !== "HEAD") {
      refuseCrossSite(ctx)
      if (request.csrfToken !== undefined && !ctx.skipCSRF) {
        const form = { ...ctx, method: "POST" as const, body: { csrfToken: request.csrfToken } }
        checked = verifyCsrf(form)
        checked.catch(() => {})
      }
    }
    return ctx
  }
  for (const [id, extension] of resolved.extensions.byId) {
    const server = extension.extension.server
    if (!server) continue
    let functions: Record<string, unknown> | undefined
    // Built on first use: reading a property costs nothing until a function is called.
    Object.defineProperty(out, id, {
      enumerable: true,
      get: () => (functions ??= guardedFunctions(resolved, server({ ...toolsFor(context(), extension), locals: extension.locals }) as Record<string, unknown>, () => checked)),
    })
  }
  return out
}

/** `functions` with each call's store outage turned into `ServiceUnavailable` (and logged once). */
function guardedFunctions(config: ResolvedConfig, functions: Record<string, unknown>, checked: () => Promise<void> | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [name, fn] of Object.entries(functions ?? {})) {
    out[name] =
      typeof fn !== "function"
        ? fn
        : async (...args: unknown[]) => {
            try {
              await checked()
              return await fn(...args)
            } catch (thrown) {
              const error = asOutage(thrown)
              report(config, error)
              throw error
            }
          }
  }
  return out
}

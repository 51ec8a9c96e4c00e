/**
 * The `extensions` option, resolved once per configuration: each extension checked (id,
 * routes, messages, budget) and set up with its host, its routes compiled for matching.
 * What `setup` returns (`locals`) is the extension's state for this configuration only.
 * @module
 */
import { InvalidConfig, type AuthError } from "../../errors.js"
import { isAuthAction } from "../http/request.js"
import type { Extension, ExtensionHost, ExtensionRoute, ExtensionRateLimit } from "./api.js"
import type { CompiledRoute, ResolvedExtension, ResolvedExtensions } from "./shapes.js"

export type { CompiledRoute, ResolvedExtension, ResolvedExtensions }

/** Names an extension id may not take besides core's actions (read from the router's own table, `isAuthAction`). */
const RESERVED = new Set(["extension", "_log"])

const ID = /^[a-z][a-z0-9-]{0,31}$/
const SEGMENT = /^(?::[a-zA-Z][a-zA-Z0-9]*|[a-z0-9][a-z0-9._-]*)$/

/** Default limit of an extension's `POST` routes, per address and per user. */
export const EXTENSION_POST_LIMIT: Readonly<ExtensionRateLimit> = Object.freeze({ max: 30, window: 60 })

/** Largest claims budget an extension may ask for: the cookie is shared by everyone. */
export const MAX_CLAIMS_BUDGET = 1024

export const noExtensions: ResolvedExtensions = Object.freeze({ byId: new Map(), inSession: Object.freeze([]) })

/** Checks and sets up `option` (the config's `extensions`); the first problem goes to `fail`. */
export function resolveExtensions(option: unknown, host: ExtensionHost, fail: (e: AuthError) => void): ResolvedExtensions {
  if (option === undefined || option === null) return noExtensions
  if (!Array.isArray(option)) {
    fail(new InvalidConfig("extensions must be an array of extensions"))
    return noExtensions
  }
  const byId = new Map<string, ResolvedExtension>()
  for (const candidate of option as unknown[]) {
    const resolved = resolveOne(candidate, host, byId, fail)
    if (resolved) byId.set(resolved.extension.id, resolved)
  }
  const inSession = [...byId.values()].filter((e) => e.extension.session?.fields || e.extension.session?.claims)
  return { byId, inSession }
}

function resolveOne(candidate: unknown, host: ExtensionHost, seen: Map<string, ResolvedExtension>, fail: (e: AuthError) => void): ResolvedExtension | undefined {
  const extension = candidate as Extension<string, unknown, unknown>
  if (!extension || typeof extension !== "object" || typeof extension.id !== "string") {
    fail(new InvalidConfig("Each entry of extensions must be an extension (an object with an id); build one with defineExtension()"))
    return undefined
  }
  const { id } = extension
  if (!ID.test(id)) return void fail(new InvalidConfig(`Extension id ${JSON.stringify(id)} must be lowercase a-z, 0-9 and -, starting with a letter, at most 32 characters`))
  if (RESERVED.has(id) || isAuthAction(id)) return void fail(new InvalidConfig(`Extension id "${id}" is one of core's actions; choose another`))
  if (seen.has(id)) return void fail(new InvalidConfig(`Two extensions have the id "${id}"; each may be configured once`))
  if (extension.messages !== undefined && (typeof extension.messages !== "object" || !extension.messages?.en)) {
    return void fail(new InvalidConfig(`Extension "${id}": messages must have English sentences (messages.en)`))
  }
  const budget = extension.session?.budget ?? 256
  if (!Number.isInteger(budget) || budget < 1 || budget > MAX_CLAIMS_BUDGET) {
    return void fail(new InvalidConfig(`Extension "${id}": session.budget must be a whole number of bytes from 1 to ${MAX_CLAIMS_BUDGET}`))
  }
  const routes: CompiledRoute[] = []
  for (const route of extension.routes ?? []) {
    const compiled = compileRoute(id, route as ExtensionRoute<unknown>, fail)
    if (!compiled) return undefined
    if (routes.some((r) => r.name === compiled.name || samePattern(r, compiled))) return void fail(new InvalidConfig(`Extension "${id}" has two routes ${compiled.name}`))
    routes.push(compiled)
  }
  let locals: unknown
  try {
    locals = extension.setup?.(host)
  } catch (error) {
    return void fail(error instanceof InvalidConfig ? error : new InvalidConfig(`Extension "${id}" could not be set up`, error as Error))
  }
  return { extension, locals, routes, budget }
}

function compileRoute(id: string, route: ExtensionRoute<unknown>, fail: (e: AuthError) => void): CompiledRoute | undefined {
  if (!route || typeof route.handler !== "function" || (route.method !== "GET" && route.method !== "POST") || typeof route.path !== "string") {
    return void fail(new InvalidConfig(`Extension "${id}": each route needs method "GET" or "POST", a path and a handler`))
  }
  const parts = route.path.split("/").filter(Boolean)
  if (!parts.every((p) => SEGMENT.test(p))) return void fail(new InvalidConfig(`Extension "${id}": route path "${route.path}" may hold only a-z, 0-9, . _ - and :params`))
  if (route.rateLimit && (!(route.rateLimit.max >= 1) || !(route.rateLimit.window >= 1))) return void fail(new InvalidConfig(`Extension "${id}": route ${route.path} has a rate limit without a positive max and window`))
  const segments = parts.map((p) => (p.startsWith(":") ? { param: p.slice(1) } : p))
  return { route, segments, name: `${route.method} ${parts.join("/")}` }
}

/** Whether two routes of one method would match the same paths (`a/:x` and `a/:y`). */
function samePattern(a: CompiledRoute, b: CompiledRoute): boolean {
  if (a.route.method !== b.route.method || a.segments.length !== b.segments.length) return false
  return a.segments.every((s, i) => {
    const t = b.segments[i]!
    return typeof s === "string" && typeof t === "string" ? s === t : typeof s !== "string" && typeof t !== "string"
  })
}

/** The route of `extension` for `path` (segments after the id) and whether another method serves it. */
export function matchRoute(extension: ResolvedExtension, method: string, path: string[]): { route: CompiledRoute; params: Record<string, string> } | { allow: string[] } | undefined {
  const allow: string[] = []
  for (const compiled of extension.routes) {
    const params = matchSegments(compiled, path)
    if (!params) continue
    if (compiled.route.method === method) return { route: compiled, params }
    allow.push(compiled.route.method)
  }
  return allow.length ? { allow } : undefined
}

function matchSegments(compiled: CompiledRoute, path: string[]): Record<string, string> | undefined {
  if (compiled.segments.length !== path.length) return undefined
  const params: Record<string, string> = {}
  for (let i = 0; i < path.length; i++) {
    const segment = compiled.segments[i]!
    const value = path[i]!
    if (typeof segment === "string") {
      if (segment !== value) return undefined
    } else {
      // A parameter is one non-empty segment of bounded length: ids and tokens, never a path.
      if (!value || value.length > 256) return undefined
      params[segment.param] = value
    }
  }
  return params
}

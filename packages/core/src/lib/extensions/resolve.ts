/**
 * The `extensions` option, resolved once per configuration: each extension checked (id,
 * routes, messages, budget) and set up with its host, its routes compiled for matching.
 * What `setup` returns (`locals`) is the extension's state for this configuration only.
 * @module
 */
import { EventError, InvalidConfig, type AuthError } from "../../errors.js"
import type { Adapter } from "../../adapters.js"
import type { LoggerInstance } from "../../base-types.js"
import type { EventCallbacks } from "../../types.js"
import type { StoreHealth } from "../store-health.js"
import type { Telemetry } from "../telemetry/index.js"
import { wrapMethods } from "../config/stores.js"
import { noopEvent } from "../config/noop-event.js"
import { isAuthAction } from "../http/request.js"
import type { Extension, ExtensionHost, ExtensionRoute, ExtensionRateLimit } from "./api.js"
import type { CompiledRoute, ResolvedExtension, ResolvedExtensions } from "./shapes.js"
import { toolsFor } from "./tools.js"
import { admission, signInGate } from "./gate.js"

export type { CompiledRoute, ResolvedExtension, ResolvedExtensions }

/** Names an extension id may not take besides core's actions (read from the router's own table, `isAuthAction`). */
const RESERVED = new Set(["extension", "_log"])

const ID = /^[a-z][a-z0-9-]{0,31}$/
const METHODS: ReadonlySet<unknown> = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"])
// Literal segments may hold capitals: protocols name their endpoints so (SCIM's `/Users`,
// `/ServiceProviderConfig`), and their clients call exactly those paths. Matching is exact.
// `.well-known` too (RFC 8615): an OpenID Provider's discovery document lives under it.
const SEGMENT = /^(?::[a-zA-Z][a-zA-Z0-9]*|[a-zA-Z0-9][a-zA-Z0-9._-]*|\.well-known)$/

/** Default limit of an extension's `POST` routes, per address and per user. */
export const EXTENSION_POST_LIMIT: Readonly<ExtensionRateLimit> = Object.freeze({ max: 30, window: 60 })

/** Largest claims budget an extension may ask for: the cookie is shared by everyone. */
export const MAX_CLAIMS_BUDGET = 1024

/** What setting extensions up needs of the configuration being resolved. */
export interface ExtensionSetup {
  adapter: Adapter | undefined
  strategy: "jwt" | "database"
  logger: LoggerInstance
  adapterTimeout: number
  storeHealth: StoreHealth
  telemetry: Telemetry
  /** The configuration's wrapped events: extensions' handlers are chained onto them. */
  events: EventCallbacks
  /** The configuration's secrets, newest first: extensions get keys derived from them (`host.deriveKey(s)`), never a secret. */
  secrets: readonly string[]
}

/**
 * Checks and sets up `option` (the config's `extensions`, an array) into `into`, and chains
 * their event handlers; returns the first problem. Loaded with `import()` by `pending.ts`
 * only for configurations with extensions.
 */
export function resolveExtensions(option: unknown, setup: ExtensionSetup, into: ResolvedExtensions): AuthError | undefined {
  if (!Array.isArray(option)) return new InvalidConfig("extensions must be an array of extensions")
  let problem: AuthError | undefined
  const fail = (e: AuthError) => void (problem ??= e)
  const host = extensionHost(setup)
  for (const candidate of option) {
    const resolved = resolveOne(candidate, host, into.byId, fail)
    if (resolved) into.byId.set(resolved.extension.id, resolved)
  }
  into.inSession.push(...[...into.byId.values()].filter((e) => e.extension.session?.fields || e.extension.session?.claims || e.extension.session?.valid))
  into.toolsFor = toolsFor
  into.routing.push(...[...into.byId.values()].filter((e) => typeof e.extension.signInRoute === "function"))
  const gated = [...into.byId.values()].filter((e) => typeof e.extension.signInGate === "function")
  if (gated.length) {
    into.gate = signInGate(gated) as ResolvedExtensions["gate"]
    into.admit = admission(gated)
  }
  withExtensionEvents(setup.events, into, setup.logger)
  return problem
}

/** What core gives each extension once (`ExtensionHost`). */
function extensionHost({ adapter, strategy, logger, adapterTimeout, storeHealth, telemetry, secrets }: ExtensionSetup): ExtensionHost {
  return {
    // Bound to the extension's id in `resolveOne`: two extensions asking for one purpose get different keys.
    deriveKey: (purpose) => deriveKey(secrets[0] ?? "", "", purpose),
    // Every secret's, so what was sealed under a secret being rotated out still opens.
    deriveKeys: (purpose) => Promise.all(secrets.map((secret) => deriveKey(secret, "", purpose))),
    logger,
    strategy,
    wrapStore: (name, store) => wrapExtensionStore(store, name, { logger, adapterTimeout, storeHealth, telemetry }),
    getUser: async (id) => (adapter?.getUser ? await adapter.getUser(id) : null),
    getUserByEmail: async (email) => (adapter?.getUserByEmail ? await adapter.getUserByEmail(email) : null),
  }
}

/**
 * Each extension's event handlers run after the app's, for the events it names, each caught
 * and logged (an extension's handler never fails the flow or another handler).
 */
function withExtensionEvents(events: EventCallbacks, extensions: ResolvedExtensions, logger: LoggerInstance): void {
  for (const { extension, locals } of extensions.byId.values()) {
    let handlers
    try {
      handlers = extension.events?.(locals)
    } catch (e) {
      logger.error(new EventError(`The ${extension.id} extension's events could not be set up`, e as Error))
      continue
    }
    for (const [name, handler] of Object.entries(handlers ?? {})) {
      const before = (events as unknown as Record<string, ((m: unknown) => Promise<void>) | undefined>)[name]
      if (typeof handler !== "function" || !before) continue
      ;(events as unknown as Record<string, (m: unknown) => Promise<void>>)[name] = async (message) => {
        if (before !== noopEvent) await before(message)
        try {
          await handler(message)
        } catch (e) {
          logger.error(new EventError(`The ${extension.id} extension's ${name} event handler threw`, e as Error))
        }
      }
    }
  }
}

/**
 * An extension's store (`ExtensionHost.wrapStore`) wrapped as the adapter is, tracked as
 * `"<name> store"`: its methods are read by name along the prototype chain, so a class
 * instance works too.
 */
function wrapExtensionStore<T extends object>(store: T, name: string, { logger, adapterTimeout, storeHealth, telemetry }: Pick<ExtensionSetup, "logger" | "adapterTimeout" | "storeHealth" | "telemetry">): T {
  const names = new Set<string>()
  for (let o: object | null = store; o && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
    for (const key of Object.getOwnPropertyNames(o)) if (key !== "constructor" && typeof (store as Record<string, unknown>)[key] === "function") names.add(key)
  }
  return wrapMethods(store, [...names], logger, adapterTimeout, storeHealth, `${name} store`, telemetry) as T
}


/** 32 bytes of HKDF-SHA256 from the configuration's secret, for `extension` and `purpose`. */
async function deriveKey(secret: string, extension: string, purpose: string): Promise<Uint8Array> {
  if (typeof purpose !== "string" || !purpose) throw new TypeError("deriveKey needs a purpose")
  const encoder = new TextEncoder()
  const material = await crypto.subtle.importKey("raw", encoder.encode(secret), "HKDF", false, ["deriveBits"])
  const bits = await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt: encoder.encode("portcullis-extension-key"), info: encoder.encode(`${extension}\u0000${purpose}`) }, material, 256)
  return new Uint8Array(bits)
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
    locals = extension.setup?.({ ...host, deriveKey: (purpose) => host.deriveKey(`${id}\u0000${purpose}`), deriveKeys: (purpose) => host.deriveKeys(`${id}\u0000${purpose}`) })
  } catch (error) {
    return void fail(error instanceof InvalidConfig ? error : new InvalidConfig(`Extension "${id}" could not be set up`, error as Error))
  }
  return { extension, locals, routes, budget }
}

function compileRoute(id: string, route: ExtensionRoute<unknown>, fail: (e: AuthError) => void): CompiledRoute | undefined {
  if (!route || typeof route.handler !== "function" || !METHODS.has(route.method) || typeof route.path !== "string") {
    return void fail(new InvalidConfig(`Extension "${id}": each route needs a method (GET, POST, PUT, PATCH or DELETE), a path and a handler`))
  }
  if (route.from !== undefined && route.from !== "site" && route.from !== "anywhere") return void fail(new InvalidConfig(`Extension "${id}": route ${route.path}'s from must be "site" or "anywhere"`))
  // Without the origin and CSRF checks a route must not read the browser's session: it
  // would act for whoever is signed in, on another site's say-so.
  if (route.from === "anywhere" && route.access !== "anyone") return void fail(new InvalidConfig(`Extension "${id}": route ${route.path} takes requests from anywhere, so it must be access: "anyone" (it authenticates its caller itself)`))
  // `*` with cookies read would hand any site the browser's session: CORS only where none is read.
  if (route.cors !== undefined && route.cors !== false && (route.cors !== true || route.from !== "anywhere")) return void fail(new InvalidConfig(`Extension "${id}": route ${route.path} has cors, which needs from: "anywhere" (a route that reads no cookies) and the value true`))
  if (route.method !== "GET" && route.method !== "POST" && route.from !== "anywhere") return void fail(new InvalidConfig(`Extension "${id}": ${route.method} routes are for machine clients: set from: "anywhere" and access: "anyone"`))
  const parts = route.path.split("/").filter(Boolean)
  if (!parts.every((p) => SEGMENT.test(p))) return void fail(new InvalidConfig(`Extension "${id}": route path "${route.path}" may hold only letters, digits, . _ - and :params`))
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
  return allow.length ? { allow: [...METHODS].filter((m): m is string => allow.includes(m as string)) } : undefined
}

/** The methods of `extension`'s CORS routes at `path`, in `METHODS` order: what a preflight may allow. */
export function corsMethods(extension: ResolvedExtension, path: string[]): string[] {
  const methods = new Set<string>(extension.routes.filter((c) => c.route.cors === true && matchSegments(c, path)).map((c) => c.route.method))
  return [...METHODS].filter((m): m is string => methods.has(m as string))
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

import { InvalidConfig } from "../../errors.js"
import { customFetch, raw, skipCSRFCheck } from "../../symbols.js"
import type { AuthConfig } from "../../types.js"

/**
 * The configuration's shape, checked before anything is computed from it: one small
 * checker per option, each returning the problem or nothing, run in order. A config that
 * fails here never reaches code that would call `.replace` on a number — the promise is a
 * configuration error answered on every request (naming the option), never a `TypeError`.
 * Meaning (a base path that is not a path, a secret that is too short…) is checked where
 * each value is resolved (`resolve.ts`).
 */
type Checker = (config: Record<PropertyKey, unknown>) => InvalidConfig | undefined

type Kind = "string" | "number" | "boolean" | "function" | "object" | "array" | "symbol"

function kindOf(value: unknown): Kind | "null" | "undefined" | "bigint" {
  if (value === null) return "null"
  if (Array.isArray(value)) return "array"
  return typeof value as Kind
}

function describe(value: unknown): string {
  const kind = kindOf(value)
  if (kind === "string") return `the string ${JSON.stringify(String(value).slice(0, 40))}`
  if (kind === "number" || kind === "boolean") return `${kind} ${String(value)}`
  return kind === "array" ? "an array" : kind === "object" ? "an object" : kind
}

/** `path` (e.g. `session.maxAge`) must be one of `kinds` when set. */
function optional(path: string, ...kinds: Kind[]): Checker {
  const keys = path.split(".")
  return (config) => {
    let value: unknown = config
    for (const key of keys) {
      if (value === undefined || value === null || typeof value !== "object") return undefined
      value = (value as Record<string, unknown>)[key]
    }
    if (value === undefined) return undefined
    if ((kinds as string[]).includes(kindOf(value))) return undefined
    return new InvalidConfig(`${path} must be ${kinds.join(" or ")}, got ${describe(value)}`)
  }
}

/** Every value of the object at `path` must be one of `kinds`. */
function eachValue(path: string, ...kinds: Kind[]): Checker {
  return (config) => {
    const object = config[path]
    if (!object || typeof object !== "object" || Array.isArray(object)) return undefined
    for (const [key, value] of Object.entries(object)) {
      if (value !== undefined && !(kinds as string[]).includes(kindOf(value))) {
        return new InvalidConfig(`${path}.${key} must be ${kinds.join(" or ")}, got ${describe(value)}`)
      }
    }
    return undefined
  }
}

/** An exported marker symbol, or nothing: a look-alike `Symbol("raw")` or `true` is refused. */
function marker(name: "raw" | "skipCSRFCheck", symbol: symbol): Checker {
  return (config) => {
    const value = config[name]
    if (value === undefined || value === symbol) return undefined
    return new InvalidConfig(`${name} must be the exported ${name} symbol from @portcullis/core, got ${describe(value)}`)
  }
}

const checkers: Checker[] = [
  (config) => (Array.isArray(config.providers) ? undefined : new InvalidConfig(`providers must be an array, got ${describe(config.providers)}`)),
  optional("basePath", "string"),
  (config) => {
    const secret = config.secret
    if (secret === undefined || typeof secret === "string") return undefined
    if (Array.isArray(secret) && secret.every((s) => typeof s === "string")) return undefined
    return new InvalidConfig(`secret must be a string or an array of strings, got ${describe(secret)}`)
  },
  optional("adapter", "object"),
  optional("adapterTimeout", "number", "boolean"),
  optional("session", "object"),
  optional("session.strategy", "string"),
  optional("session.maxAge", "number"),
  optional("session.updateAge", "number"),
  optional("session.generateSessionToken", "function"),
  optional("session.hashTokens", "boolean"),
  optional("session.registry", "object"),
  optional("session.revocationCheckInterval", "number"),
  optional("session.metadata", "boolean"),
  optional("session.absoluteMaxAge", "number"),
  optional("session.unverifiedMaxAge", "number"),
  optional("jwt", "object"),
  optional("jwt.maxAge", "number"),
  optional("jwt.encode", "function"),
  optional("jwt.decode", "function"),
  optional("callbacks", "object"),
  eachValue("callbacks", "function"),
  optional("events", "object"),
  eachValue("events", "function"),
  optional("cookies", "object"),
  eachValue("cookies", "object"),
  optional("pages", "object"),
  eachValue("pages", "string"),
  optional("theme", "object"),
  eachValue("theme", "string"),
  optional("logger", "object"),
  eachValue("logger", "function"),
  optional("debug", "boolean"),
  optional("trustHost", "boolean"),
  optional("trustedOrigins", "array"),
  optional("useSecureCookies", "boolean"),
  optional("redirectProxyUrl", "string"),
  optional("experimental", "object"),
  optional("experimental.enableWebAuthn", "boolean"),
  marker("raw", raw),
  marker("skipCSRFCheck", skipCSRFCheck),
  (config) => {
    const fetch = config[customFetch]
    return fetch === undefined || typeof fetch === "function" ? undefined : new InvalidConfig(`[customFetch] must be a function, got ${describe(fetch)}`)
  },
]

/** The first shape problem of `config`, or `undefined`. */
export function checkShape(config: unknown): InvalidConfig | undefined {
  if (!config || typeof config !== "object" || Array.isArray(config)) return new InvalidConfig(`The configuration must be an object, got ${describe(config)}`)
  for (const check of checkers) {
    const problem = check(config as Record<PropertyKey, unknown>)
    if (problem) return problem
  }
  return undefined
}

/**
 * The parts of a config that failed its checks which the error response itself needs (the
 * base path to route under, the theme and pages of the error page, the app's logger), each
 * kept only when well-typed: the answer to every request is then the configuration error.
 */
export function fallbackConfig(config: unknown): AuthConfig {
  const c = (config && typeof config === "object" ? config : {}) as Record<string, unknown>
  const logger = c.logger && typeof c.logger === "object" && Object.values(c.logger).every((v) => typeof v === "function") ? (c.logger as AuthConfig["logger"]) : undefined
  const pages = c.pages && typeof c.pages === "object" && Object.values(c.pages).every((v) => typeof v === "string") ? (c.pages as AuthConfig["pages"]) : undefined
  const theme = c.theme && typeof c.theme === "object" && Object.values(c.theme).every((v) => typeof v === "string") ? (c.theme as AuthConfig["theme"]) : undefined
  return {
    providers: [],
    // Only to get through resolution: every request answers the configuration error.
    secret: "portcullis-configuration-error-placeholder-secret",
    trustHost: true,
    ...(typeof c.basePath === "string" && { basePath: c.basePath }),
    ...(logger && { logger }),
    ...(pages && { pages }),
    ...(theme && { theme }),
    // A broken configuration still answers its health probes (`down`, with the problem's type).
    ...(typeof c.health === "object" && c.health !== null ? { health: c.health as AuthConfig["health"] } : {}),
  }
}

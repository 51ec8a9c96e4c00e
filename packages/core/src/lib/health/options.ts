/**
 * The `health` option: resolved once per configuration into whether the endpoint is served,
 * the probes' time bound, and the shared check (`ResolvedConfig.health`).
 * @module
 */
import { InvalidConfig, type AuthError } from "../../errors.js"
import { SharedCheck } from "./shared.js"

/**
 * Health checks (docs/observability.md, "Health checks"): what `health()` and the optional
 * `GET <basePath>/health` endpoint report about the stores of the configuration.
 *
 * @example
 * ```ts
 * const config = { adapter, providers, health: { endpoint: true, timeout: 500 } }
 * ```
 */
export interface HealthOptions {
  /** Serve `GET <basePath>/health` (200 when ok or degraded, 503 when down). Default `false`: the path answers as an unknown action. */
  endpoint?: boolean
  /** Milliseconds each store's probe may take before it counts as down. Default `1000`. */
  timeout?: number
}

/** The `health` option with its defaults, and the check the endpoint's probes share. */
export interface ResolvedHealth {
  endpoint: boolean
  timeout: number
  shared: SharedCheck
}

export const HEALTH_DEFAULT_TIMEOUT = 1000

export function resolveHealth(option: HealthOptions | undefined, fail: (e: AuthError) => void): ResolvedHealth {
  const resolved: ResolvedHealth = { endpoint: false, timeout: HEALTH_DEFAULT_TIMEOUT, shared: new SharedCheck() }
  if (option === undefined || option === null) return resolved
  if (typeof option !== "object" || Array.isArray(option)) {
    fail(new InvalidConfig(`health must be an object, got ${JSON.stringify(option)}`))
    return resolved
  }
  const { endpoint = false, timeout = HEALTH_DEFAULT_TIMEOUT } = option
  if (typeof endpoint !== "boolean") fail(new InvalidConfig(`health.endpoint must be a boolean, got ${JSON.stringify(endpoint)}`))
  else resolved.endpoint = endpoint
  // A probe without a bound would hang a load balancer's check as long as the store hangs.
  if (typeof timeout !== "number" || !Number.isFinite(timeout) || timeout < 1) fail(new InvalidConfig(`health.timeout must be a number of milliseconds of at least 1, got ${JSON.stringify(timeout)}`))
  else resolved.timeout = timeout
  return resolved
}

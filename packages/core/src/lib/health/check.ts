/**
 * The health check (docs/observability.md, "Health checks"): one cheap read of every store
 * the configuration has — never a write — each bounded by `health.timeout`, all at once.
 * @module
 */
import { configProblem, type ResolvedConfig } from "../config/resolve.js"
import { randomHex } from "../crypto.js"
import { causeOf } from "../store-health.js"
import type { HealthReport, HealthStatus, StoreCheck } from "./shared.js"

/** The rate-limit and step-up key the probes read: no counter or mark is ever stored under it. */
const PROBE_KEY = "portcullis:health-probe"

/** The checks that probe a store (every one but `config`). */
type Probed = Exclude<keyof HealthReport["checks"], "config">

/** A code that is safe to show whoever can reach the endpoint: no spaces, no URL, short. */
const SAFE_CODE = /^[A-Za-z0-9_.-]{1,48}$/

/**
 * Probes every store of `config` concurrently, each within `timeoutMs`, and answers how the
 * configuration stands: `down` when it has a configuration problem or a store that session
 * checks need fails (the adapter with database sessions, the session registry); `degraded`
 * when another store fails (sign-ins, rate limits or step-up refuse meanwhile, sessions are
 * still checked); `ok` otherwise.
 */
export async function checkHealth(config: ResolvedConfig, timeoutMs: number): Promise<HealthReport> {
  const time = new Date().toISOString()
  const probes: Array<Promise<[Probed, StoreCheck]>> = []
  const probe = (name: Probed, read: () => unknown) => probes.push(timed(read, timeoutMs).then((check) => [name, check]))

  // A random id: no user has it, so the read finds nothing and costs one index lookup. (The
  // wrapped adapter's methods are closures over the adapter: callable on their own.)
  const { getUser, getUserByEmail } = config.adapter ?? {}
  if (getUser) probe("adapter", () => getUser(`health-${randomHex(8)}`))
  else if (getUserByEmail) probe("adapter", () => getUserByEmail(`health-${randomHex(8)}@health.invalid`))
  const registry = config.sessionRegistry?.store
  if (registry) probe("sessionRegistry", () => registry.list(`health-${randomHex(8)}`))
  const counters = config.rateLimit?.settings.store
  if (counters) probe("rateLimit", () => counters.peek(PROBE_KEY))
  const marks = config.stepUp.store
  if (marks !== counters) probe("stepUp", () => marks.peek(PROBE_KEY))

  const [problem, results] = await Promise.all([configProblem(config).catch((e: unknown) => e as Error), Promise.all(probes)])
  const checks: HealthReport["checks"] = { config: problem ? { status: "down", error: problemCode(problem) } : { status: "ok" } }
  for (const [name, check] of results) checks[name] = check
  return { status: statusOf(config, checks), checks, time }
}

function statusOf(config: ResolvedConfig, checks: HealthReport["checks"]): HealthStatus {
  if (checks.config.status === "down") return "down"
  // Without these no session can be checked: every signed-in request fails.
  const sessions = config.session.strategy === "database" ? checks.adapter : undefined
  if (sessions?.status === "down" || checks.sessionRegistry?.status === "down") return "down"
  const failing = Object.values(checks).some((check) => check.status === "down")
  return failing ? "degraded" : "ok"
}

/** Runs `read` within `timeoutMs`: `ok` with its latency, or `down` with `timeout` or the error's code. */
async function timed(read: () => unknown, timeoutMs: number): Promise<StoreCheck> {
  const started = performance.now()
  const latency = () => Math.round((performance.now() - started) * 10) / 10
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs)
  })
  try {
    // A store that never answers leaves its call pending; the check answers at the bound.
    const outcome = await Promise.race([Promise.resolve().then(read).then(() => "ok" as const), late])
    if (outcome === "timeout") return { status: "down", latencyMs: timeoutMs, error: "timeout" }
    return { status: "ok", latencyMs: latency() }
  } catch (e) {
    return { status: "down", latencyMs: latency(), error: codeOf(e) }
  } finally {
    clearTimeout(timer)
  }
}

/**
 * What a store's failure is called in the report: the first `code` down its chain
 * (`ECONNREFUSED`, PostgreSQL's `57P01`), `timeout` for a call past `adapterTimeout`, else
 * the innermost error's class name. Never its message: a driver's message may carry a host,
 * a user or a connection string.
 */
function codeOf(error: unknown): string {
  let link: unknown = error
  let name = "Error"
  try {
    // A chain is a handful of links (AdapterError → the driver's error → its cause).
    for (let depth = 0; depth < 8 && link instanceof Error; depth++) {
      const code = (link as { code?: unknown }).code
      if (typeof code === "string" && SAFE_CODE.test(code)) return code
      if (link.name === "TimeoutError") return "timeout"
      if (SAFE_CODE.test(link.name)) name = link.name
      link = causeOf(link)
    }
  } catch {
    // A driver's error whose getters throw: the probe failed all the same, and the report
    // must still be written (a throw here would turn every probe into an error page).
  }
  return name
}

/** A configuration problem by its stable type (`MissingSecret`, `InvalidConfig`). */
function problemCode(problem: Error): string {
  const type = (problem as { type?: unknown }).type
  return typeof type === "string" && SAFE_CODE.test(type) ? type : "InvalidConfig"
}

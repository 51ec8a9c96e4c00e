// Turns one scenario's raw outcomes into the figures the suite prints and judges.
import type { Outcome } from "./http.ts"

export interface ScenarioInput {
  store: string
  fault: string
  outcomes: readonly Outcome[]
  /** When the fault was injected, and when the store answered again (ms since the epoch). */
  faultAt: number
  backAt: number
  recoveryMs: number
  crashes: number
  /** App stderr lines mentioning an unhandled error. */
  unhandled: number
  signOuts: number
  lies: number
  leaked: number
}

export interface ScenarioResult extends Omit<ScenarioInput, "outcomes"> {
  requests: number
  /** Requests started while the store was broken, and their statuses (`302: 40, 200: 310`). */
  duringFault: { requests: number; statuses: Record<string, number>; p99Ms: number; maxMs: number }
  stack500s: number
}

function percentile(values: number[], p: number): number {
  if (!values.length) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

export function summarise(input: ScenarioInput): ScenarioResult {
  const { outcomes, ...rest } = input
  const during = outcomes.filter((o) => o.start >= input.faultAt && o.start <= input.backAt)
  const statuses: Record<string, number> = {}
  for (const o of during) statuses[o.status] = (statuses[o.status] ?? 0) + 1
  const latencies = during.map((o) => o.end - o.start)
  return {
    ...rest,
    requests: outcomes.length,
    duringFault: { requests: during.length, statuses, p99Ms: percentile(latencies, 99), maxMs: Math.max(0, ...latencies) },
    stack500s: outcomes.filter((o) => o.stack500).length,
  }
}

/** What is wrong with a scenario; empty when it passed. */
export function failures(r: ScenarioResult, recoveryLimitMs: number): string[] {
  const problems: string[] = []
  if (r.crashes) problems.push(`${r.crashes} app crash(es)`)
  if (r.unhandled) problems.push(`${r.unhandled} unhandled-error line(s) from the app`)
  if (r.stack500s) problems.push(`${r.stack500s} 500 response(s) with a stack trace`)
  if (r.lies) problems.push(`${r.lies} of ${r.signOuts} successful sign-out(s) left the session working`)
  if (r.leaked) problems.push(`${r.leaked} store connection(s) over the pool size afterwards`)
  if (!(r.recoveryMs <= recoveryLimitMs)) problems.push(`recovery took ${r.recoveryMs} ms (limit ${recoveryLimitMs} ms)`)
  return problems
}

const statusText = (statuses: Record<string, number>) =>
  Object.entries(statuses).sort(([a], [b]) => a.localeCompare(b)).map(([s, n]) => `${s}×${n}`).join(" ") || "-"

/** A Markdown table, the same one docs/reliability.md shows. */
export function formatTable(results: readonly ScenarioResult[], options: { header: boolean }): string {
  const rows = results.map((r) =>
    `| ${r.store} | ${r.fault} | ${r.requests} | ${r.duringFault.requests}: ${statusText(r.duringFault.statuses)} | ${r.duringFault.p99Ms} / ${r.duringFault.maxMs} | ${r.recoveryMs === Infinity ? "never" : r.recoveryMs} | ${r.crashes} | ${r.unhandled} | ${r.stack500s} | ${r.lies}/${r.signOuts} | ${r.leaked} |`,
  )
  const header = [
    "| store | fault | requests | during the fault: count: status×n | p99 / max ms (fault) | recovery ms | crashes | unhandled | 500 w/ stack | sign-out lies | leaked conns |",
    "|---|---|---|---|---|---|---|---|---|---|---|",
  ]
  return [...(options.header ? header : []), ...rows].join("\n")
}

/**
 * `npm run bench`: GET /auth/session throughput, Portcullis vs @auth/core, on node:http.
 *
 * Each row starts its server in a separate process (`bench/server.ts`), one at a time, so
 * the server and this load generator each get a core. Before loading, the bench signs in
 * through the server (GET /csrf, POST /callback/credentials) and checks GET /session
 * returns the bench user; during the load, every response must be a 200 carrying that
 * session (autocannon `verifyBody`), or the row is invalid.
 *
 * Exit code: 1 if a server fails, the session is not authenticated, or the correctness
 * guard trips; 0 otherwise, including when a speed target is missed (that is reported).
 *
 * Every row runs ROUNDS times, interleaved (all rows, then all rows again), so a slow
 * moment of a shared machine does not land on one library only; req/s is the mean of the
 * rounds, and p50/p99 are over every measured response of the rounds.
 *
 * Knobs (env): BENCH_DURATION (s per round, default 8), BENCH_WARMUP (s, default 2),
 * BENCH_ROUNDS (default 2), BENCH_CONNECTIONS (default 10), BENCH_PROFILE=<dir> (run the Portcullis servers with
 * --cpu-prof into <dir>), BENCH_ONLY=<comma-separated targets>, BENCH_JSON=<file>.
 */
import autocannon, { type Result } from "autocannon"
import { cpus } from "node:os"
import { writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { getSession, isBenchSession, signIn, startServer, type RunningServer } from "./harness.ts"
import { BASE_PATH, type Target } from "./shared.ts"

const DURATION = Number(process.env.BENCH_DURATION ?? 8)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim())

type Scenario = "fresh" | "reissue" | "baseline"

interface Case {
  scenario: Scenario
  library: string
  target: Target
  /** For authenticated rows: whether GET /session should re-issue the cookie. */
  expectReissue?: boolean
}

const SCENARIO_TITLES: Record<Scenario, string> = {
  fresh: "(a) fresh session",
  reissue: "(b) re-issue",
  baseline: "(c) baseline, no auth",
}
/** Portcullis/@auth/core throughput ratio each scenario should reach. */
const TARGET_RATIO: Partial<Record<Scenario, number>> = { fresh: 3, reissue: 1.2 }

const CASES: Case[] = [
  { scenario: "baseline", library: "node:http + adapter", target: "baseline" },
  { scenario: "fresh", library: "Portcullis", target: "portcullis", expectReissue: false },
  { scenario: "fresh", library: "@auth/core", target: "authjs", expectReissue: true },
  { scenario: "reissue", library: "Portcullis", target: "portcullis-reissue", expectReissue: true },
  { scenario: "reissue", library: "@auth/core", target: "authjs", expectReissue: true },
]

/** One measured round of one case. */
interface Measurement {
  reqPerSec: number
  total: number
  /** Everything the correctness guard counted as wrong. */
  bad: { non2xx: number; mismatches: number; errors: number; timeouts: number }
  reissued: boolean | undefined
}

/** A case over all its rounds. */
interface Row extends Case {
  reqPerSec: number
  rounds: number[]
  p50: number
  p99: number
  total: number
  reissued: boolean | undefined
}

class BenchFailure extends Error {}

/** Latencies (ms, float) of every measured response, for exact percentiles. */
class Latencies {
  #values = new Float64Array(1 << 16)
  #n = 0
  add(ms: number) {
    if (this.#n === this.#values.length) {
      const grown = new Float64Array(this.#values.length * 2)
      grown.set(this.#values)
      this.#values = grown
    }
    this.#values[this.#n++] = ms
  }
  percentile(p: number): number {
    if (!this.#n) return Number.NaN
    const sorted = this.#values.subarray(0, this.#n).sort()
    return sorted[Math.min(this.#n - 1, Math.floor((p / 100) * this.#n))]!
  }
}

function load(url: string, headers: Record<string, string>, seconds: number, verifyBody: (body: string) => boolean, latencies?: Latencies) {
  return new Promise<Result>((resolvePromise, reject) => {
    const instance = autocannon(
      { url, headers, connections: CONNECTIONS, duration: seconds, verifyBody },
      (error, result) => (error ? reject(error) : resolvePromise(result)),
    )
    if (latencies) instance.on("response", (_client, _status, _bytes, ms) => latencies.add(ms))
  })
}

async function measure(c: Case, latencies: Latencies): Promise<Measurement> {
  const profiling = PROFILE_DIR && c.target.startsWith("portcullis")
  const execArgv = profiling ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${c.target}-${Date.now()}.cpuprofile`] : []
  let server: RunningServer
  try {
    server = await startServer(c.target, { execArgv })
  } catch (error) {
    throw new BenchFailure(`${c.library} (${c.target}): ${(error as Error).message}`)
  }
  try {
    const headers: Record<string, string> = {}
    let reissued: boolean | undefined
    let verifyBody: (body: string) => boolean
    const path = c.target === "baseline" ? "/" : `${BASE_PATH}/session`
    if (c.target === "baseline") {
      verifyBody = (body) => body === "{}"
    } else {
      let cookie: string
      try {
        cookie = await signIn(server.url)
      } catch (error) {
        throw new BenchFailure(`${c.library} (${c.target}): ${(error as Error).message}`)
      }
      const check = await getSession(server.url, cookie)
      if (check.status !== 200 || !isBenchSession(check.session)) {
        throw new BenchFailure(`${c.library} (${c.target}): GET ${BASE_PATH}/session is not authenticated (status ${check.status}, body ${JSON.stringify(check.session)})`)
      }
      reissued = check.reissued
      if (c.expectReissue !== undefined && reissued !== c.expectReissue) {
        console.warn(`  warning: ${c.library} ${c.scenario}: GET /session ${reissued ? "re-issued" : "did not re-issue"} the cookie, expected the opposite`)
      }
      headers.cookie = cookie
      verifyBody = (body) => {
        try {
          return isBenchSession(JSON.parse(body))
        } catch {
          return false
        }
      }
    }

    const url = server.url + path
    if (WARMUP > 0) await load(url, headers, WARMUP, verifyBody)
    const result = await load(url, headers, DURATION, verifyBody, latencies)
    if (server.exited) throw new BenchFailure(`${c.library} (${c.target}): the server exited during the run (${JSON.stringify(server.exited)})`)

    const bad = { non2xx: result.non2xx, mismatches: result.mismatches, errors: result.errors, timeouts: result.timeouts }
    if (c.target !== "baseline") {
      // And the session still holds after the load.
      const after = await getSession(server.url, headers.cookie!)
      if (after.status !== 200 || !isBenchSession(after.session)) bad.mismatches++
    }
    return { reqPerSec: result.requests.mean, total: result.requests.total, bad, reissued }
  } finally {
    await server.stop()
  }
}

function pad(value: string, width: number, right = false) {
  return right ? value.padStart(width) : value.padEnd(width)
}

function printTable(rows: Row[]) {
  const ceiling = rows.find((r) => r.scenario === "baseline")?.reqPerSec
  const header = ["scenario", "library", "req/s mean (per round)", "p50 ms", "p99 ms", "of ceiling", "cookie re-issued", "ratio P/A"]
  const lines: string[][] = []
  for (const r of rows) {
    const pair = rows.filter((x) => x.scenario === r.scenario)
    const portcullis = pair.find((x) => x.library === "Portcullis")
    const authjs = pair.find((x) => x.library === "@auth/core")
    const ratio = r.library === "Portcullis" && portcullis && authjs ? `${(portcullis.reqPerSec / authjs.reqPerSec).toFixed(2)}×` : ""
    lines.push([
      SCENARIO_TITLES[r.scenario],
      r.library,
      Math.round(r.reqPerSec).toLocaleString("en-US") + (r.rounds.length > 1 ? ` (${r.rounds.map((x) => Math.round(x).toLocaleString("en-US")).join(" / ")})` : ""),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      ceiling ? `${Math.round((100 * r.reqPerSec) / ceiling)}%` : "",
      r.reissued === undefined ? "-" : r.reissued ? "yes" : "no",
      ratio,
    ])
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const numeric = new Set([2, 3, 4, 5, 7])
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i]!, numeric.has(i))).join(" | ")} |`
  console.log(fmt(header))
  console.log(`|${widths.map((w, i) => (numeric.has(i) ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`)
  for (const l of lines) console.log(fmt(l))
}

function targetsReport(rows: Row[]): string[] {
  const out: string[] = []
  for (const [scenario, wanted] of Object.entries(TARGET_RATIO) as [Scenario, number][]) {
    const portcullis = rows.find((r) => r.scenario === scenario && r.library === "Portcullis")
    const authjs = rows.find((r) => r.scenario === scenario && r.library === "@auth/core")
    if (!portcullis || !authjs) continue
    const ratio = portcullis.reqPerSec / authjs.reqPerSec
    out.push(`${SCENARIO_TITLES[scenario]}: ${ratio.toFixed(2)}× (target ≥${wanted}×) ${ratio >= wanted ? "MET" : "MISSED"}`)
  }
  return out
}

async function main() {
  const cases = ONLY ? CASES.filter((c) => ONLY.includes(c.target)) : CASES
  const cpu = cpus()
  console.log(`Portcullis bench: GET ${BASE_PATH}/session on node:http (Node ${process.versions.node}, ${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"})`)
  console.log(`${CONNECTIONS} connections; per row and round a fresh server process, ${WARMUP}s warm-up + ${DURATION}s measured; ${ROUNDS} interleaved round(s)\n`)
  if (PROFILE_DIR) console.log(`profiling Portcullis servers into ${PROFILE_DIR}\n`)

  const failures: string[] = []
  const perCase = cases.map(() => ({ latencies: new Latencies(), runs: [] as Measurement[], failed: false }))
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`round ${round}/${ROUNDS}`)
    for (const [i, c] of cases.entries()) {
      const acc = perCase[i]!
      if (acc.failed) continue
      process.stdout.write(`  ${pad(SCENARIO_TITLES[c.scenario], 24)} ${pad(c.library, 20)} ... `)
      try {
        const m = await measure(c, acc.latencies)
        acc.runs.push(m)
        const badCount = m.bad.non2xx + m.bad.mismatches + m.bad.errors + m.bad.timeouts
        console.log(`${Math.round(m.reqPerSec)} req/s, ${m.total} requests${badCount ? `, ${badCount} BAD` : ", all 200 + expected body"}`)
        if (badCount) {
          acc.failed = true
          failures.push(`${c.library} ${c.scenario}: correctness guard tripped ${JSON.stringify(m.bad)}`)
        }
      } catch (error) {
        console.log("FAILED")
        if (!(error instanceof BenchFailure)) throw error
        acc.failed = true
        failures.push(error.message)
      }
    }
  }
  const rows: Row[] = []
  for (const [i, c] of cases.entries()) {
    const { latencies, runs, failed } = perCase[i]!
    if (failed || !runs.length) continue
    rows.push({
      ...c,
      reqPerSec: runs.reduce((sum, m) => sum + m.reqPerSec, 0) / runs.length,
      rounds: runs.map((m) => m.reqPerSec),
      p50: latencies.percentile(50),
      p99: latencies.percentile(99),
      total: runs.reduce((sum, m) => sum + m.total, 0),
      reissued: runs[0]!.reissued,
    })
  }

  console.log("")
  if (rows.length) printTable(rows)
  console.log("")
  for (const line of targetsReport(rows)) console.log(line)
  if (process.env.BENCH_JSON) {
    writeFileSync(process.env.BENCH_JSON, JSON.stringify({ node: process.versions.node, cpus: cpu.length, connections: CONNECTIONS, duration: DURATION, rounds: ROUNDS, rows }, null, 2))
  }
  if (failures.length) {
    console.error(`\nbench FAILED:\n${failures.map((f) => `  - ${f}`).join("\n")}`)
    process.exitCode = 1
  }
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})

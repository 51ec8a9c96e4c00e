/**
 * `npm run bench`: GET /auth/session throughput, Portcullis vs @auth/core, on node:http.
 *
 * Each row starts its server in a separate process (`bench/server.ts`), one at a time, so
 * the server and this load generator each get a core. Before loading, the bench signs in
 * through the server (GET /csrf, POST /callback/credentials) and checks GET /session
 * returns the bench user; during the load, every response must be a 200 carrying that
 * session (autocannon `verifyBody`), or the row is invalid.
 *
 * The database rows (d, e) cannot sign in through the server (Auth.js refuses credentials
 * with database sessions): the bench writes a session row through the shared adapter for
 * each server instead (`bench/db.ts`), sends its token as the session cookie, and counts
 * the adapter writes each server makes. PostgreSQL rows are skipped (one line, exit 0) when
 * PostgreSQL is unreachable.
 *
 * Exit code: 1 if a server fails, the session is not authenticated, or the correctness
 * guard trips; 0 otherwise, including when a speed target is missed (that is reported).
 *
 * Every row runs ROUNDS times, interleaved (all rows, then all rows again), so a slow
 * moment of a shared machine does not land on one library only; req/s is the mean of the
 * rounds, and p50/p99 are over every measured response of the rounds.
 *
 * Knobs (env): BENCH_DURATION (s per round, default 8), BENCH_DB_DURATION (the same for
 * the database rows, default 6), BENCH_WARMUP (s, default 2), BENCH_PG_URL,
 * BENCH_ROUNDS (default 2), BENCH_CONNECTIONS (default 10), BENCH_PROFILE=<dir> (run the Portcullis servers with
 * --cpu-prof into <dir>), BENCH_ONLY=<comma-separated targets>, BENCH_JSON=<file>.
 */
import autocannon, { type Result } from "autocannon"
import { cpus } from "node:os"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { createBenchDatabase, PG_URL, probePostgres, type BenchDatabase, type BenchDialect } from "./db.ts"
import { getSession, isBenchSession, signIn, startServer, type RunningServer } from "./harness.ts"
import { BASE_PATH, DB_ENV, DB_TARGETS, type Target } from "./shared.ts"

const DURATION = Number(process.env.BENCH_DURATION ?? 8)
const DB_DURATION = Number(process.env.BENCH_DB_DURATION ?? 6)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim())

type Scenario = "fresh" | "reissue" | "baseline" | "db-sqlite" | "db-postgres"

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
  "db-sqlite": "(d) database, SQLite",
  "db-postgres": "(e) database, PostgreSQL",
}
/** Portcullis/@auth/core throughput ratio each scenario should reach. */
const TARGET_RATIO: Partial<Record<Scenario, number>> = { fresh: 3, reissue: 1.2, "db-sqlite": 1.7, "db-postgres": 1.7 }

const CASES: Case[] = [
  { scenario: "baseline", library: "node:http + adapter", target: "baseline" },
  { scenario: "fresh", library: "Portcullis", target: "portcullis", expectReissue: false },
  { scenario: "fresh", library: "@auth/core", target: "authjs", expectReissue: true },
  { scenario: "reissue", library: "Portcullis", target: "portcullis-reissue", expectReissue: true },
  { scenario: "reissue", library: "@auth/core", target: "authjs", expectReissue: true },
  { scenario: "db-sqlite", library: "Portcullis", target: "portcullis-sqlite", expectReissue: false },
  { scenario: "db-sqlite", library: "@auth/core", target: "authjs-sqlite", expectReissue: true },
  { scenario: "db-postgres", library: "Portcullis", target: "portcullis-postgres", expectReissue: false },
  { scenario: "db-postgres", library: "@auth/core", target: "authjs-postgres", expectReissue: true },
]

/** Clock ticks per second of /proc/<pid>/stat times (Linux). */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/**
 * CPU time (user + system, µs) a process has used so far, from /proc (Linux); undefined
 * elsewhere. Per request, it is far steadier than req/s on a shared machine: it does not
 * count the time the server waited for a core.
 */
function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // Fields after the ")" that closes the command name: utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

/** One measured round of one case. */
interface Measurement {
  reqPerSec: number
  total: number
  /** Everything the correctness guard counted as wrong. */
  bad: { non2xx: number; mismatches: number; errors: number; timeouts: number }
  reissued: boolean | undefined
  /** Server CPU time per measured request (µs), when /proc is there. */
  cpuPerRequest: number | undefined
  /** Database rows: adapter writes the server made, by method (pre-check, load, post-check). */
  writes: Record<string, number> | undefined
}

/** A case over all its rounds. */
interface Row extends Case {
  reqPerSec: number
  rounds: number[]
  p50: number
  p99: number
  total: number
  reissued: boolean | undefined
  /** Server CPU µs per request, over all rounds (undefined without /proc). */
  cpuPerRequest: number | undefined
  /** Database rows: adapter writes summed over the rounds, by method. */
  writes: Record<string, number> | undefined
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

async function measure(c: Case, latencies: Latencies, databases: Partial<Record<BenchDialect, BenchDatabase>>): Promise<Measurement> {
  const profiling = PROFILE_DIR && c.target.startsWith("portcullis")
  const execArgv = profiling ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${c.target}-${Date.now()}.cpuprofile`] : []
  const dialect = DB_TARGETS[c.target]
  const database = dialect && databases[dialect]
  if (dialect && !database) throw new BenchFailure(`${c.library} (${c.target}): no ${dialect} database`)
  let server: RunningServer
  let dbCookie: string | undefined
  try {
    // A fresh session row per server: 30 days left, so it is not due for an update.
    if (database) dbCookie = await database.newSession()
    server = await startServer(c.target, { execArgv, env: database ? { [DB_ENV]: JSON.stringify(database.spec) } : undefined })
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
        cookie = dbCookie ?? (await signIn(server.url))
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
    const cpuBefore = cpuMicros(server.child.pid)
    const result = await load(url, headers, dialect ? DB_DURATION : DURATION, verifyBody, latencies)
    const cpuAfter = cpuMicros(server.child.pid)
    const cpuPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
      ? (cpuAfter - cpuBefore) / result.requests.total
      : undefined
    if (server.exited) throw new BenchFailure(`${c.library} (${c.target}): the server exited during the run (${JSON.stringify(server.exited)})`)

    const bad = { non2xx: result.non2xx, mismatches: result.mismatches, errors: result.errors, timeouts: result.timeouts }
    if (c.target !== "baseline") {
      // And the session still holds after the load.
      const after = await getSession(server.url, headers.cookie!)
      if (after.status !== 200 || !isBenchSession(after.session)) bad.mismatches++
    }
    await server.stop()
    if (dialect && !server.stats) throw new BenchFailure(`${c.library} (${c.target}): the server reported no adapter write counts`)
    return { reqPerSec: result.requests.mean, total: result.requests.total, bad, reissued, cpuPerRequest, writes: dialect ? server.stats!.writes : undefined }
  } finally {
    await server.stop()
  }
}

/** "updateSession 0", or with any other write methods too. */
function formatWrites(writes: Record<string, number>): string {
  const others = Object.entries(writes).filter(([method, n]) => method !== "updateSession" && n > 0)
  return [`updateSession ${writes.updateSession ?? 0}`, ...others.map(([method, n]) => `${method} ${n}`)].join(", ")
}

function pad(value: string, width: number, right = false) {
  return right ? value.padStart(width) : value.padEnd(width)
}

function printTable(rows: Row[]) {
  const ceiling = rows.find((r) => r.scenario === "baseline")?.reqPerSec
  const header = ["scenario", "library", "req/s mean (per round)", "p50 ms", "p99 ms", "of ceiling", "server CPU µs/req", "cookie re-issued", "session writes", "ratio P/A", "CPU ratio A/P"]
  const lines: string[][] = []
  for (const r of rows) {
    const pair = rows.filter((x) => x.scenario === r.scenario)
    const portcullis = pair.find((x) => x.library === "Portcullis")
    const authjs = pair.find((x) => x.library === "@auth/core")
    const paired = r.library === "Portcullis" && portcullis && authjs
    const ratio = paired ? `${(portcullis.reqPerSec / authjs.reqPerSec).toFixed(2)}×` : ""
    const cpuRatio = paired && portcullis.cpuPerRequest && authjs.cpuPerRequest ? `${(authjs.cpuPerRequest / portcullis.cpuPerRequest).toFixed(2)}×` : ""
    lines.push([
      SCENARIO_TITLES[r.scenario],
      r.library,
      Math.round(r.reqPerSec).toLocaleString("en-US") + (r.rounds.length > 1 ? ` (${r.rounds.map((x) => Math.round(x).toLocaleString("en-US")).join(" / ")})` : ""),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      ceiling ? `${Math.round((100 * r.reqPerSec) / ceiling)}%` : "",
      r.cpuPerRequest === undefined ? "-" : Math.round(r.cpuPerRequest).toString(),
      r.reissued === undefined ? "-" : r.reissued ? "yes" : "no",
      r.writes ? String(r.writes.updateSession ?? 0) : "-",
      ratio,
      cpuRatio,
    ])
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const numeric = new Set([2, 3, 4, 5, 6, 8, 9, 10])
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
    const cpu = portcullis.cpuPerRequest && authjs.cpuPerRequest
      ? `; server CPU per request ${Math.round(authjs.cpuPerRequest)} vs ${Math.round(portcullis.cpuPerRequest)} µs (${(authjs.cpuPerRequest / portcullis.cpuPerRequest).toFixed(2)}×)`
      : ""
    out.push(`${SCENARIO_TITLES[scenario]}: ${ratio.toFixed(2)}× (target ≥${wanted}×) ${ratio >= wanted ? "MET" : "MISSED"}${cpu}`)
  }
  return out
}

/** Creates the databases the selected cases need; drops the PostgreSQL cases if it is unreachable. */
async function setUpDatabases(cases: Case[], failures: string[]) {
  const databases: Partial<Record<BenchDialect, BenchDatabase>> = {}
  const wanted = new Set(cases.map((c) => DB_TARGETS[c.target]).filter((d) => d !== undefined))
  if (wanted.has("postgres")) {
    try {
      await probePostgres()
    } catch (error) {
      console.log(`PostgreSQL unreachable at ${PG_URL} (${(error as Error).message}): skipping the PostgreSQL rows\n`)
      wanted.delete("postgres")
      cases = cases.filter((c) => DB_TARGETS[c.target] !== "postgres")
    }
  }
  for (const dialect of wanted) {
    try {
      databases[dialect] = await createBenchDatabase(dialect)
    } catch (error) {
      // Reachable but unusable (say, no permission to create tables): that is a failure.
      failures.push(`${dialect} database setup failed: ${(error as Error).message}`)
      cases = cases.filter((c) => DB_TARGETS[c.target] !== dialect)
    }
  }
  return { cases, databases }
}

async function main() {
  const cpu = cpus()
  console.log(`Portcullis bench: GET ${BASE_PATH}/session on node:http (Node ${process.versions.node}, ${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"})`)
  console.log(`${CONNECTIONS} connections; per row and round a fresh server process, ${WARMUP}s warm-up + ${DURATION}s measured (database rows ${DB_DURATION}s); ${ROUNDS} interleaved round(s)\n`)
  if (PROFILE_DIR) console.log(`profiling Portcullis servers into ${PROFILE_DIR}\n`)

  const failures: string[] = []
  const { cases, databases } = await setUpDatabases(ONLY ? CASES.filter((c) => ONLY.includes(c.target)) : CASES, failures)
  try {
    await runCases(cases, databases, failures)
  } finally {
    for (const database of Object.values(databases)) {
      await database.close().catch((error: unknown) => console.error(`could not clean up the ${database.spec.dialect} database:`, error))
    }
  }
  if (failures.length) {
    console.error(`\nbench FAILED:\n${failures.map((f) => `  - ${f}`).join("\n")}`)
    process.exitCode = 1
  }
}

async function runCases(cases: Case[], databases: Partial<Record<BenchDialect, BenchDatabase>>, failures: string[]) {
  const perCase = cases.map(() => ({ latencies: new Latencies(), runs: [] as Measurement[], failed: false }))
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`round ${round}/${ROUNDS}`)
    for (const [i, c] of cases.entries()) {
      const acc = perCase[i]!
      if (acc.failed) continue
      process.stdout.write(`  ${pad(SCENARIO_TITLES[c.scenario], 24)} ${pad(c.library, 20)} ... `)
      try {
        const m = await measure(c, acc.latencies, databases)
        acc.runs.push(m)
        const badCount = m.bad.non2xx + m.bad.mismatches + m.bad.errors + m.bad.timeouts
        console.log(`${Math.round(m.reqPerSec)} req/s, ${m.total} requests${m.cpuPerRequest === undefined ? "" : `, ${Math.round(m.cpuPerRequest)} µs CPU/req`}${badCount ? `, ${badCount} BAD` : ", all 200 + expected body"}${m.writes ? `; adapter writes: ${formatWrites(m.writes)}` : ""}`)
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
      cpuPerRequest: runs.every((m) => m.cpuPerRequest !== undefined)
        ? runs.reduce((sum, m) => sum + m.cpuPerRequest! * m.total, 0) / runs.reduce((sum, m) => sum + m.total, 0)
        : undefined,
      writes: runs[0]!.writes ? sumWrites(runs.map((m) => m.writes!)) : undefined,
    })
  }

  console.log("")
  if (rows.length) printTable(rows)
  console.log("")
  for (const line of targetsReport(rows)) console.log(line)
  const dbRows = rows.filter((r) => r.writes)
  if (dbRows.length) {
    console.log(`\nadapter writes per database row (${ROUNDS} round(s), one fresh session per server, 30 days left, updateAge 24 h):`)
    for (const r of dbRows) {
      console.log(`  ${pad(SCENARIO_TITLES[r.scenario], 24)} ${pad(r.library, 11)} ${formatWrites(r.writes!)} over ${r.total.toLocaleString("en-US")} measured requests`)
    }
  }
  if (process.env.BENCH_JSON) {
    writeFileSync(process.env.BENCH_JSON, JSON.stringify({ node: process.versions.node, cpus: cpus().length, connections: CONNECTIONS, duration: DURATION, dbDuration: DB_DURATION, rounds: ROUNDS, rows }, null, 2))
  }
}

function sumWrites(all: Record<string, number>[]): Record<string, number> {
  const sum: Record<string, number> = { updateSession: 0 }
  for (const writes of all) for (const [method, n] of Object.entries(writes)) sum[method] = (sum[method] ?? 0) + n
  return sum
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})

/**
 * `npm run bench`: Portcullis vs @auth/core (and @portcullis/express vs @auth/express) on
 * node:http, with many users rather than one.
 *
 * Each row starts its server in a separate process (`bench/server.ts`), one at a time, so
 * the server and this load generator each get a core. Session rows send N distinct session
 * cookies in rotation (`bench/sessions.ts`; N = 1 is the single-cookie "hot" case), and the
 * rotation continues across the warm-up and the rounds, so no cookie is sent twice before
 * all N were. Every response is checked (autocannon `verifyBody`): a 200 carrying the bench
 * user's session, or the row is invalid and the run fails.
 *
 * - Telemetry row: the JWT check at N = 20,000 with `telemetry: false`, next to the default
 *   (the OpenTelemetry API present, no SDK registered): the instrumentation's own cost.
 * - JWT rows: N valid JWT cookies of the bench user, minted once for the run (the format is
 *   Auth.js's, so both libraries get the very same cookies).
 * - Database rows: N session rows, in each server's own `MemoryAdapter` (seeded at start),
 *   or in one SQLite / PostgreSQL database shared by both libraries through `SqlAdapter`.
 * - Express rows: `GET /page` calling the integration's `getSession(req, config)`
 *   (@portcullis/express vs @auth/express); Next.js rows: `GET /page` calling the Pages
 *   Router's `auth(req, res)` (@portcullis/next vs next-auth 5).
 * - Sign-in rows: the credentials `POST /callback/credentials`, and the OAuth callback
 *   against a local provider (`bench/provider.ts`), both with `X-Auth-Return-Redirect` so
 *   success is a `200 {url}`; the response must also set the session cookie.
 *
 * Measured per row and round: req/s, latency, and the server process's CPU time per request
 * (from /proc; the same figure `process.cpuUsage()` gives inside it), which does not count
 * time the server waited for a core and so holds on a shared machine. Targets are printed
 * as MET / NOT MET; missing one does not fail the run (exit 1 is for broken servers and
 * tripped correctness guards only).
 *
 * Usage: `npm run bench` (about 6 minutes), `npm run bench -- --quick` (about 2 minutes:
 * the rows the targets need, one round).
 *
 * Knobs (env): BENCH_DURATION (s per round, default 2), BENCH_WARMUP (s, default 3: long enough for V8 to optimise the libraries' code; production servers run warm),
 * BENCH_ROUNDS (default 2; quick 1), BENCH_CONNECTIONS (default 10), BENCH_PG_URL,
 * BENCH_PROFILE=<dir> (run the Portcullis servers and the floor with --cpu-prof into <dir>),
 * BENCH_ONLY=<comma-separated row ids, e.g. jwt-20000,db-memory-20000>, BENCH_JSON=<file>.
 */
import autocannon, { type Request as LoadRequest, type Result } from "autocannon"
import { cpus, loadavg } from "node:os"
import { execFileSync } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { createBenchDatabase, PG_URL, probePostgres, type BenchDatabase, type BenchDialect } from "./db.ts"
import { getSession, isBenchSession, startServer, type RunningServer } from "./harness.ts"
import { startLocalProvider, type LocalProvider } from "./provider.ts"
import { opSelected, runOpRows } from "./op-run.ts"
import { databaseCookies, mintJwtCookies, newRunId, Rotation, SESSION_COOKIE } from "./sessions.ts"
import { BASE_PATH, BENCH_CREDENTIALS, BUSY_US, DB_ENV, OAUTH_ENV, OAUTH_PROVIDER_ID, DB_TARGETS, EXPRESS_PAGE, EXPRESS_TARGETS, MEMORY_TARGETS, NEXT_TARGETS, SESSIONS_ENV, type Target } from "./shared.ts"

const QUICK = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1"
const DURATION = Number(process.env.BENCH_DURATION ?? 2)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 2)))
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim())

type Scenario = "baseline" | "baseline-session" | "baseline-busy" | "jwt" | "jwt-telemetry-off" | "reissue" | "db-memory" | "db-sqlite" | "db-postgres" | "express" | "next" | "signin" | "oauth"
type Library = "node:http + adapter" | "Portcullis" | "@auth/core"

interface Case {
  scenario: Scenario
  library: Library
  target: Target
  /** Distinct sessions in rotation (session rows). */
  sessions?: number
}

const SCENARIO_TITLES: Record<Scenario, string> = {
  baseline: "floor: node:http + Web Request/Response, fixed JSON",
  "baseline-session": "floor, session-shaped: a session cookie in, a fixed session answer out",
  "baseline-busy": `floor + ${BUSY_US} µs of computation per request (calibration)`,
  jwt: "JWT session check",
  "jwt-telemetry-off": "JWT session check, telemetry: false (vs the row above: OTel API, no SDK)",
  reissue: "JWT, re-issued on every check",
  "db-memory": "database session, in-memory adapter",
  "db-sqlite": "database session, SQLite",
  "db-postgres": "database session, PostgreSQL",
  express: "Express getSession(req) per page",
  next: "Next.js auth(req, res) per page (Pages Router)",
  signin: "credentials sign-in POST",
  oauth: "OAuth callback, local provider",
}

const N_CURVE = [1, 1_000, 20_000, 100_000]
const COLD = 20_000

function pair(scenario: Scenario, portcullis: Target, authjs: Target, sessions?: number): Case[] {
  return [
    { scenario, library: "Portcullis", target: portcullis, sessions },
    { scenario, library: "@auth/core", target: authjs, sessions },
  ]
}

function allCases(): Case[] {
  const cases: Case[] = [
    { scenario: "baseline", library: "node:http + adapter", target: "baseline" },
    { scenario: "baseline-session", library: "node:http + adapter", target: "baseline-session" },
    { scenario: "baseline-busy", library: "node:http + adapter", target: "baseline-busy" },
  ]
  const curve = QUICK ? [1, COLD] : N_CURVE
  for (const n of curve) cases.push(...pair("jwt", "portcullis", "authjs", n))
  // What tracing costs an app that registered no OpenTelemetry SDK: the same check with the
  // instrumentation switched off. Equal CPU per request here is "zero measurable cost".
  cases.push({ scenario: "jwt-telemetry-off", library: "Portcullis", target: "portcullis-telemetry-off", sessions: COLD })
  if (!QUICK) cases.push(...pair("reissue", "portcullis-reissue", "authjs", 1))
  for (const n of QUICK ? [COLD] : N_CURVE) cases.push(...pair("db-memory", "portcullis-memory", "authjs-memory", n))
  for (const n of QUICK ? [COLD] : [1, COLD]) cases.push(...pair("db-sqlite", "portcullis-sqlite", "authjs-sqlite", n))
  if (!QUICK) cases.push(...pair("db-postgres", "portcullis-postgres", "authjs-postgres", 1_000))
  cases.push(...pair("express", "express-portcullis", "express-authjs", COLD))
  cases.push(...pair("next", "next-portcullis", "next-authjs", COLD))
  cases.push(...pair("signin", "portcullis", "authjs"))
  cases.push(...pair("oauth", "portcullis", "authjs"))
  return cases
}

/** The id BENCH_ONLY selects a case by: `jwt-20000`, `db-memory-1`, `baseline`, `signin`. */
function caseId(c: Case): string {
  return c.sessions === undefined ? c.scenario : `${c.scenario}-${c.sessions}`
}

function caseTitle(c: Case): string {
  return c.sessions === undefined ? SCENARIO_TITLES[c.scenario] : `${SCENARIO_TITLES[c.scenario]}, N=${c.sessions.toLocaleString("en-US")}`
}

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
  /** Database rows: adapter writes the server made, by method. */
  writes: Record<string, number> | undefined
  /** The server's memory after a full GC at the end of the round. */
  memory: { rss: number; heapUsed: number } | undefined
}

/** A case over all its rounds. */
interface Row extends Case {
  reqPerSec: number
  rounds: number[]
  p50: number
  p99: number
  total: number
  reissued: boolean | undefined
  cpuPerRequest: number | undefined
  writes: Record<string, number> | undefined
  memory: { rss: number; heapUsed: number } | undefined
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

/** What one row sends and how each answer is checked. */
interface Load {
  url: string
  request: LoadRequest
  verifyBody: (body: string) => boolean
  /** Answers the body check passed but something else (a header) did not; counted as mismatches. */
  extraBad: { count: number }
}

function load(spec: Load, seconds: number, latencies?: Latencies) {
  return new Promise<Result>((resolvePromise, reject) => {
    const instance = autocannon(
      { url: spec.url, connections: CONNECTIONS, duration: seconds, requests: [spec.request], verifyBody: spec.verifyBody },
      (error, result) => (error ? reject(error) : resolvePromise(result)),
    )
    if (latencies) instance.on("response", (_client, _status, _bytes, ms) => latencies.add(ms))
  })
}

const isSessionBody = (body: string) => {
  try {
    return isBenchSession(JSON.parse(body))
  } catch {
    return false
  }
}

/** The shared inputs of the run: minted JWT cookies, the run id of database sessions, the databases. */
interface Inputs {
  jwtCookies: string[]
  runId: string
  databases: Partial<Record<BenchDialect, BenchDatabase>>
  /** One rotation per case, kept across its warm-up and rounds. */
  rotations: Map<Case, Rotation>
  /** The local OAuth provider of the OAuth callback rows. */
  provider: LocalProvider | undefined
}

function rotationOf(c: Case, inputs: Inputs): Rotation {
  let rotation = inputs.rotations.get(c)
  if (!rotation) {
    const n = c.sessions ?? 1
    const cookies = c.scenario === "jwt" || c.scenario === "jwt-telemetry-off" || c.scenario === "reissue" || c.scenario === "express" || c.scenario === "next" || c.scenario === "baseline-session"
      ? inputs.jwtCookies.slice(0, n)
      : databaseCookies(inputs.runId, n)
    rotation = new Rotation(cookies)
    inputs.rotations.set(c, rotation)
  }
  return rotation
}

async function credentialsLoad(server: RunningServer): Promise<Load> {
  const csrfResponse = await fetch(`${server.url}${BASE_PATH}/csrf`)
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken?: string }
  if (csrfResponse.status !== 200 || typeof csrfToken !== "string") throw new Error(`GET ${BASE_PATH}/csrf answered ${csrfResponse.status}`)
  const csrfCookie = csrfResponse.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(";"))).join("; ")
  const extraBad = { count: 0 }
  const body = new URLSearchParams({ csrfToken, callbackUrl: `${server.url}/`, ...BENCH_CREDENTIALS }).toString()
  const headers = { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie, "x-auth-return-redirect": "1" }
  const check = await fetch(`${server.url}${BASE_PATH}/callback/credentials`, { method: "POST", headers, body })
  const answer = await check.text()
  if (check.status !== 200 || !signedIn(answer) || !check.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !c.startsWith(`${SESSION_COOKIE}=;`))) {
    throw new Error(`POST ${BASE_PATH}/callback/credentials did not sign in (status ${check.status}, body ${answer.slice(0, 200)})`)
  }
  return {
    url: `${server.url}${BASE_PATH}/callback/credentials`,
    request: {
      method: "POST",
      path: `${BASE_PATH}/callback/credentials`,
      headers,
      body,
      onResponse(_status, _body, _context, responseHeaders) {
        if (!setsSession(responseHeaders)) extraBad.count++
      },
    },
    verifyBody: signedIn,
    extraBad,
  }
}

/** `name=value` pairs of a response's cookies that set something (deletions left out). */
function setCookiePairs(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.slice(0, c.indexOf(";") === -1 ? c.length : c.indexOf(";"))).filter((pair) => !pair.endsWith("="))
}

/** Whether response headers (autocannon's record) set a non-empty session cookie. */
function setsSession(responseHeaders: Record<string, string | string[]>): boolean {
  const entry = Object.entries(responseHeaders).find(([name]) => name.toLowerCase() === "set-cookie")?.[1]
  const cookies = Array.isArray(entry) ? entry : entry ? [entry] : []
  return cookies.some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !c.startsWith(`${SESSION_COOKIE}=;`))
}

/**
 * The OAuth callback as the provider's redirect brings the browser back: signs in once
 * (`POST /signin/local` with the CSRF token) for the state and PKCE cookies, then the row
 * replays `GET /callback/local?code&state` with them; each must exchange the code, read
 * the profile and set the session cookie. (Neither library keeps used states server-side:
 * the check cookies carry them, as in Auth.js.)
 */
async function oauthLoad(server: RunningServer): Promise<Load> {
  const csrfResponse = await fetch(`${server.url}${BASE_PATH}/csrf`)
  const { csrfToken } = (await csrfResponse.json()) as { csrfToken?: string }
  if (csrfResponse.status !== 200 || typeof csrfToken !== "string") throw new Error(`GET ${BASE_PATH}/csrf answered ${csrfResponse.status}`)
  const csrfCookies = setCookiePairs(csrfResponse)
  const start = await fetch(`${server.url}${BASE_PATH}/signin/${OAUTH_PROVIDER_ID}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies.join("; "), "x-auth-return-redirect": "1" },
    body: new URLSearchParams({ csrfToken, callbackUrl: `${server.url}/` }).toString(),
  })
  const { url: authorizeUrl } = (await start.json().catch(() => ({}))) as { url?: string }
  const state = authorizeUrl ? new URL(authorizeUrl).searchParams.get("state") : null
  if (start.status !== 200 || !state) throw new Error(`POST ${BASE_PATH}/signin/${OAUTH_PROVIDER_ID} did not start a sign-in (status ${start.status}, url ${authorizeUrl})`)
  const path = `${BASE_PATH}/callback/${OAUTH_PROVIDER_ID}?code=bench-code&state=${encodeURIComponent(state)}`
  const headers = { cookie: [...csrfCookies, ...setCookiePairs(start)].join("; "), "x-auth-return-redirect": "1" }
  for (let i = 0; i < 2; i++) {
    const check = await fetch(`${server.url}${path}`, { headers })
    const answer = await check.text()
    if (check.status !== 200 || !signedIn(answer) || !setCookiePairs(check).some((p) => p.startsWith(`${SESSION_COOKIE}=`))) {
      throw new Error(`GET ${BASE_PATH}/callback/${OAUTH_PROVIDER_ID} (call ${i + 1}) did not sign in (status ${check.status}, body ${answer.slice(0, 200)})`)
    }
  }
  const extraBad = { count: 0 }
  return {
    url: `${server.url}${path}`,
    request: {
      method: "GET",
      path,
      headers,
      onResponse(_status, _body, _context, responseHeaders) {
        if (!setsSession(responseHeaders)) extraBad.count++
      },
    },
    verifyBody: signedIn,
    extraBad,
  }
}

/** A `200 {url}` sign-in answer that is not an error redirect. */
function signedIn(body: string): boolean {
  try {
    const { url } = JSON.parse(body) as { url?: unknown }
    return typeof url === "string" && !url.includes("error")
  } catch {
    return false
  }
}

async function measure(c: Case, latencies: Latencies, inputs: Inputs): Promise<Measurement> {
  const profiling = PROFILE_DIR && (c.library === "Portcullis" || c.library === "node:http + adapter")
  const execArgv = ["--expose-gc", ...(profiling ? ["--cpu-prof", "--cpu-prof-interval=250", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${caseId(c)}-${c.target}-${Date.now()}.cpuprofile`] : [])]
  const dialect = DB_TARGETS[c.target]
  const database = dialect && inputs.databases[dialect]
  if (dialect && !database) throw new BenchFailure(`${c.library} (${c.target}): no ${dialect} database`)
  const env: Record<string, string> = {}
  if (database) env[DB_ENV] = JSON.stringify(database.spec)
  if (MEMORY_TARGETS.includes(c.target)) env[SESSIONS_ENV] = `${c.sessions ?? 1}:${inputs.runId}`
  if (c.scenario === "oauth") {
    if (!inputs.provider) throw new BenchFailure(`${c.library} (${c.target}): no local OAuth provider`)
    env[OAUTH_ENV] = inputs.provider.url
  }
  let server: RunningServer
  try {
    server = await startServer(c.target, { execArgv, env, timeoutMs: 60_000 })
  } catch (error) {
    throw new BenchFailure(`${c.library} (${c.target}): ${(error as Error).message}`)
  }
  try {
    let spec: Load
    let reissued: boolean | undefined
    let afterCheck: (() => Promise<boolean>) | undefined
    if (c.scenario === "baseline" || c.scenario === "baseline-busy") {
      spec = { url: `${server.url}/`, request: { method: "GET", path: "/" }, verifyBody: (body) => body === "{}", extraBad: { count: 0 } }
    } else if (c.scenario === "signin" || c.scenario === "oauth") {
      try {
        spec = c.scenario === "signin" ? await credentialsLoad(server) : await oauthLoad(server)
      } catch (error) {
        throw new BenchFailure(`${c.library} (${c.target}): ${(error as Error).message}`)
      }
    } else {
      const rotation = rotationOf(c, inputs)
      const express = EXPRESS_TARGETS.includes(c.target) || NEXT_TARGETS.includes(c.target)
      // Next's server adds X-Forwarded-Proto to what pages see; without it next-auth assumes https.
      const extraHeaders: Record<string, string> = NEXT_TARGETS.includes(c.target) ? { "x-forwarded-proto": "http" } : {}
      const path = express ? EXPRESS_PAGE : `${BASE_PATH}/session`
      // The first cookie, checked outside the rotation: the server serves the bench user.
      const probe = rotation.cookies[0]!
      const first = express ? await expressPage(server.url, probe, extraHeaders) : await getSession(server.url, probe)
      if (first.status !== 200 || !isBenchSession(first.session)) {
        throw new BenchFailure(`${c.library} (${c.target}): GET ${path} is not authenticated (status ${first.status}, body ${JSON.stringify(first.session)})`)
      }
      reissued = "reissued" in first ? (first.reissued as boolean) : undefined
      spec = {
        url: server.url + path,
        request: {
          method: "GET",
          path,
          setupRequest: (request) => ({ ...request, headers: { ...extraHeaders, cookie: rotation.next() } }),
        },
        verifyBody: isSessionBody,
        extraBad: { count: 0 },
      }
      afterCheck = async () => {
        const after = express ? await expressPage(server.url, probe, extraHeaders) : await getSession(server.url, probe)
        return after.status === 200 && isBenchSession(after.session)
      }
    }

    if (WARMUP > 0) await load(spec, WARMUP)
    spec.extraBad.count = 0
    const cpuBefore = cpuMicros(server.child.pid)
    const result = await load(spec, DURATION, latencies)
    const cpuAfter = cpuMicros(server.child.pid)
    const cpuPerRequest = cpuBefore !== undefined && cpuAfter !== undefined && result.requests.total > 0
      ? (cpuAfter - cpuBefore) / result.requests.total
      : undefined
    if (server.exited) throw new BenchFailure(`${c.library} (${c.target}): the server exited during the run (${JSON.stringify(server.exited)})`)

    const bad = { non2xx: result.non2xx, mismatches: result.mismatches + spec.extraBad.count, errors: result.errors, timeouts: result.timeouts }
    if (afterCheck && !(await afterCheck())) bad.mismatches++
    await server.stop()
    if (!server.stats) throw new BenchFailure(`${c.library} (${c.target}): the server reported no stats`)
    return {
      reqPerSec: result.requests.mean,
      total: result.requests.total,
      bad,
      reissued,
      cpuPerRequest,
      writes: dialect || MEMORY_TARGETS.includes(c.target) ? server.stats.writes : undefined,
      memory: server.stats.memory,
    }
  } finally {
    await server.stop()
  }
}

async function expressPage(url: string, cookie: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${EXPRESS_PAGE}`, { headers: { ...headers, cookie } })
  const session = (await response.json().catch(() => null)) as { user?: unknown } | null
  return { status: response.status, session }
}

function formatWrites(writes: Record<string, number>): string {
  const others = Object.entries(writes).filter(([method, n]) => method !== "updateSession" && n > 0)
  return [`updateSession ${writes.updateSession ?? 0}`, ...others.map(([method, n]) => `${method} ${n}`)].join(", ")
}

function pad(value: string, width: number, right = false) {
  return right ? value.padStart(width) : value.padEnd(width)
}

const fmtInt = (n: number) => Math.round(n).toLocaleString("en-US")

/** The package a row runs: the integrations' own names on the integration rows. */
function libraryLabel(c: Case): string {
  if (c.scenario === "express") return c.library === "Portcullis" ? "@portcullis/express" : "@auth/express"
  if (c.scenario === "next") return c.library === "Portcullis" ? "@portcullis/next" : "next-auth 5"
  return c.library
}

function counterpart(rows: Row[], r: Row): Row | undefined {
  return rows.find((x) => x.scenario === r.scenario && x.sessions === r.sessions && x.library !== r.library && x.library !== "node:http + adapter")
}

function printTable(rows: Row[]): string[] {
  const floor = rows.find((r) => r.scenario === "baseline")
  const header = ["scenario", "library", "req/s mean (per round)", "p50 ms", "p99 ms", "of floor", "server CPU µs/req", "cookie re-issued", "ratio P/A", "CPU ratio A/P"]
  const lines: string[][] = []
  for (const r of rows) {
    const other = r.library === "Portcullis" ? counterpart(rows, r) : undefined
    lines.push([
      caseTitle(r),
      libraryLabel(r),
      fmtInt(r.reqPerSec) + (r.rounds.length > 1 ? ` (${r.rounds.map(fmtInt).join(" / ")})` : ""),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      floor ? `${Math.round((100 * r.reqPerSec) / floor.reqPerSec)}%` : "",
      r.cpuPerRequest === undefined ? "-" : Math.round(r.cpuPerRequest).toString(),
      r.reissued === undefined ? "-" : r.reissued ? "yes" : "no",
      other ? `${(r.reqPerSec / other.reqPerSec).toFixed(2)}×` : "",
      other && r.cpuPerRequest && other.cpuPerRequest ? `${(other.cpuPerRequest / r.cpuPerRequest).toFixed(2)}×` : "",
    ])
  }
  return table(header, lines, new Set([2, 3, 4, 5, 6, 8, 9]))
}

function table(header: string[], lines: string[][], numeric: Set<number>): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)))
  const fmt = (cells: string[]) => `| ${cells.map((c, i) => pad(c, widths[i]!, numeric.has(i))).join(" | ")} |`
  return [fmt(header), `|${widths.map((w, i) => (numeric.has(i) ? "-".repeat(w + 1) + ":" : "-".repeat(w + 2))).join("|")}|`, ...lines.map(fmt)]
}

/** Server CPU µs per request against N, per session kind and library. */
function costCurve(rows: Row[]): string[] {
  const kinds: Scenario[] = ["jwt", "db-memory", "db-sqlite"]
  const ns = [...new Set(rows.filter((r) => r.sessions !== undefined && kinds.includes(r.scenario)).map((r) => r.sessions!))].sort((a, b) => a - b)
  if (!ns.length) return []
  const columns: [Scenario, Library][] = kinds.flatMap((k) => [[k, "Portcullis"], [k, "@auth/core"]] as [Scenario, Library][])
    .filter(([k, l]) => rows.some((r) => r.scenario === k && r.library === l))
  const floor = rows.find((r) => r.scenario === "baseline")?.cpuPerRequest
  const short: Record<string, string> = { jwt: "JWT", "db-memory": "DB memory", "db-sqlite": "DB SQLite" }
  const header = ["N distinct sessions", ...columns.map(([k, l]) => `${short[k]} ${l === "Portcullis" ? "P" : "A"}`)]
  const lines = ns.map((n) => [
    fmtInt(n),
    ...columns.map(([k, l]) => {
      const cpu = rows.find((r) => r.scenario === k && r.library === l && r.sessions === n)?.cpuPerRequest
      return cpu === undefined ? "" : Math.round(cpu).toString()
    }),
  ])
  const out = [`Cost curve: server CPU µs per GET ${BASE_PATH}/session (P = Portcullis, A = @auth/core)${floor ? `; the floor costs ${Math.round(floor)} µs` : ""}`, ""]
  return [...out, ...table(header, lines, new Set(columns.map((_, i) => i + 1).concat(0)))]
}

/** The issue's targets, each MET / NOT MET with its figures. */
function targetsReport(rows: Row[]): string[] {
  const out: string[] = []
  const find = (scenario: Scenario, library: Library, sessions?: number) =>
    rows.find((r) => r.scenario === scenario && r.library === library && r.sessions === sessions)
  const floor = rows.find((r) => r.scenario === "baseline")
  const verdict = (ok: boolean) => (ok ? "MET" : "NOT MET")
  const versus = (label: string, scenario: Scenario, sessions: number | undefined, wanted: number, byCpu: boolean) => {
    const p = find(scenario, "Portcullis", sessions)
    const a = find(scenario, "@auth/core", sessions)
    if (!p || !a) return
    const ratio = p.reqPerSec / a.reqPerSec
    const cpuRatio = p.cpuPerRequest && a.cpuPerRequest ? a.cpuPerRequest / p.cpuPerRequest : undefined
    const ok = ratio >= wanted && (!byCpu || (cpuRatio !== undefined && cpuRatio >= wanted))
    out.push(`${verdict(ok)}  ${label} ≥ ${wanted}× ${libraryLabel(a)}${byCpu ? " (req/s and CPU/request)" : ""}: ${ratio.toFixed(2)}× req/s (${fmtInt(p.reqPerSec)} vs ${fmtInt(a.reqPerSec)})` +
      (cpuRatio ? `, ${cpuRatio.toFixed(2)}× CPU (${Math.round(a.cpuPerRequest!)} vs ${Math.round(p.cpuPerRequest!)} µs/req)` : ""))
  }
  const ofFloor = (label: string, scenario: Scenario, sessions: number, wanted: number) => {
    const p = find(scenario, "Portcullis", sessions)
    if (!p || !floor) return
    const share = p.reqPerSec / floor.reqPerSec
    const cpuShare = p.cpuPerRequest && floor.cpuPerRequest ? floor.cpuPerRequest / p.cpuPerRequest : undefined
    out.push(`${verdict(share >= wanted)}  ${label} ≥ ${Math.round(wanted * 100)}% of the floor: ${Math.round(share * 100)}% by req/s (${fmtInt(p.reqPerSec)} vs ${fmtInt(floor.reqPerSec)})` +
      (cpuShare ? `, ${Math.round(cpuShare * 100)}% by CPU/request (${Math.round(floor.cpuPerRequest!)} vs ${Math.round(p.cpuPerRequest!)} µs)` : ""))
  }
  // Not a target: the same shares against the floor that answers a session's shape (a
  // session cookie in; five headers and the session body out), which no check can beat.
  const shaped = rows.find((r) => r.scenario === "baseline-session")
  const ofShaped = (label: string, scenario: Scenario, sessions: number) => {
    const p = find(scenario, "Portcullis", sessions)
    if (!p || !shaped) return
    const cpu = p.cpuPerRequest && shaped.cpuPerRequest ? `, ${Math.round((shaped.cpuPerRequest / p.cpuPerRequest) * 100)}% by CPU/request (${Math.round(shaped.cpuPerRequest)} vs ${Math.round(p.cpuPerRequest)} µs)` : ""
    out.push(`  (info) ${label}: ${Math.round((p.reqPerSec / shaped.reqPerSec) * 100)}% of the session-shaped floor by req/s (${fmtInt(p.reqPerSec)} vs ${fmtInt(shaped.reqPerSec)})${cpu}`)
  }
  // Not a target: what a known amount of in-process work costs over HTTP on this machine,
  // and so how much work above the floor "80% of the floor" leaves a check.
  const busy = rows.find((r) => r.scenario === "baseline-busy")
  if (busy && floor) {
    let line = `  (info) the floor + ${BUSY_US} µs of computation: ${Math.round((100 * busy.reqPerSec) / floor.reqPerSec)}% of the floor by req/s`
    if (busy.cpuPerRequest && floor.cpuPerRequest) {
      const added = busy.cpuPerRequest - floor.cpuPerRequest
      line += `, ${Math.round(busy.cpuPerRequest)} vs ${Math.round(floor.cpuPerRequest)} µs CPU/request`
      // 80% of the floor by CPU/request allows a quarter of the floor's cost on top of it.
      if (added > 0) line += `: each in-process µs costs ${(added / BUSY_US).toFixed(1)} µs here, so 80% of the floor leaves ≈ ${((floor.cpuPerRequest / 4) * (BUSY_US / added)).toFixed(1)} µs of in-process work above it`
    }
    out.push(line)
  }
  versus(`cold JWT check (N=${fmtInt(COLD)})`, "jwt", COLD, 5, true)
  ofFloor("hot JWT check (N=1)", "jwt", 1, 0.7)
  ofShaped("hot JWT check (N=1)", "jwt", 1)
  // Issue 29: the OpenTelemetry instrumentation costs nothing measurable without an SDK.
  const traced = find("jwt", "Portcullis", COLD)
  const untraced = find("jwt-telemetry-off", "Portcullis", COLD)
  if (traced?.cpuPerRequest && untraced?.cpuPerRequest) {
    const delta = traced.cpuPerRequest - untraced.cpuPerRequest
    out.push(`  (info) telemetry without an SDK (cold JWT check): ${Math.round(traced.cpuPerRequest)} vs ${Math.round(untraced.cpuPerRequest)} µs CPU/request with \`telemetry: false\` (${delta >= 0 ? "+" : "−"}${Math.abs(delta).toFixed(1)} µs, ${((100 * delta) / untraced.cpuPerRequest).toFixed(1)}%; the rounds' spread is the noise)`)
  }
  versus(`database sessions, in-memory adapter (N=${fmtInt(COLD)})`, "db-memory", COLD, 2.5, true)
  ofFloor(`database sessions, in-memory adapter (N=${fmtInt(COLD)})`, "db-memory", COLD, 0.8)
  ofShaped(`database sessions, in-memory adapter (N=${fmtInt(COLD)})`, "db-memory", COLD)
  versus(`database sessions, SQLite (N=${fmtInt(COLD)})`, "db-sqlite", COLD, 2, false)
  versus(`Express getSession(req), cold JWT (N=${fmtInt(COLD)})`, "express", COLD, 3, false)
  versus(`Next.js auth(req, res), cold JWT (N=${fmtInt(COLD)})`, "next", COLD, 3, false)
  return out
}

/** RSS and heap of the Portcullis JWT server with its verified-token cache full, against N=1. */
function memoryReport(rows: Row[]): string[] {
  const out: string[] = []
  for (const scenario of ["jwt", "db-memory"] as const) {
    for (const library of ["Portcullis", "@auth/core"] as const) {
      const one = rows.find((r) => r.scenario === scenario && r.library === library && r.sessions === 1)?.memory
      const many = rows.filter((r) => r.scenario === scenario && r.library === library && (r.sessions ?? 0) >= COLD && r.memory)
      for (const r of many) {
        if (!one) continue
        const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
        out.push(`  ${pad(`${SCENARIO_TITLES[scenario]}, ${library}`, 52)} N=${pad(fmtInt(r.sessions!), 7, true)}: heap ${mb(r.memory!.heapUsed)} (${signed(r.memory!.heapUsed - one.heapUsed)} vs N=1), RSS ${mb(r.memory!.rss)} (${signed(r.memory!.rss - one.rss)})`)
      }
    }
  }
  return out
}

function signed(bytes: number): string {
  return `${bytes >= 0 ? "+" : "−"}${(Math.abs(bytes) / 1024 / 1024).toFixed(1)} MB`
}

/** Creates the databases the selected cases need and fills them with the sessions; drops PostgreSQL if unreachable. */
async function setUpDatabases(cases: Case[], runId: string, failures: string[]) {
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
      const database = await createBenchDatabase(dialect)
      databases[dialect] = database
      const n = Math.max(...cases.filter((c) => DB_TARGETS[c.target] === dialect).map((c) => c.sessions ?? 1))
      await database.seedSessions(runId, n)
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
  const [load1, load5] = loadavg()
  console.log(`Portcullis bench${QUICK ? " (--quick)" : ""} on node:http (Node ${process.versions.node}, ${cpu.length} × ${cpu[0]?.model.trim() ?? "cpu"}; load average ${load1!.toFixed(2)} / ${load5!.toFixed(2)} at start)`)
  console.log(`${CONNECTIONS} connections; per row and round a fresh server process, ${WARMUP}s warm-up + ${DURATION}s measured; ${ROUNDS} interleaved round(s); session rows rotate N distinct sessions\n`)
  if (PROFILE_DIR) console.log(`profiling Portcullis servers into ${PROFILE_DIR}\n`)

  const failures: string[] = []
  const selected = ONLY ? allCases().filter((c) => ONLY.includes(caseId(c)) || ONLY.includes(c.target)) : allCases()
  const runId = newRunId()
  const jwtN = Math.max(0, ...selected.filter((c) => c.scenario === "jwt" || c.scenario === "jwt-telemetry-off" || c.scenario === "reissue" || c.scenario === "express" || c.scenario === "next" || c.scenario === "baseline-session").map((c) => c.sessions ?? 1))
  const started = Date.now()
  const jwtCookies = jwtN ? await mintJwtCookies(jwtN) : []
  if (jwtN) console.log(`minted ${fmtInt(jwtN)} distinct JWT session cookies in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const { cases, databases } = await setUpDatabases(selected, runId, failures)
  const provider = cases.some((c) => c.scenario === "oauth") ? await startLocalProvider() : undefined
  const inputs: Inputs = { jwtCookies, runId, databases, rotations: new Map(), provider }
  try {
    if (cases.length) await runCases(cases, inputs, failures)
    // The OpenID Provider rows (issue 34): their own servers, rounds and report (op-run.ts).
    if (opSelected(ONLY)) failures.push(...(await runOpRows({ rounds: ROUNDS, duration: DURATION, warmup: WARMUP, connections: CONNECTIONS, only: ONLY, profileDir: PROFILE_DIR })))
  } finally {
    await provider?.close()
    for (const database of Object.values(databases)) {
      await database.close().catch((error: unknown) => console.error(`could not clean up the ${database.spec.dialect} database:`, error))
    }
  }
  const [end1] = loadavg()
  console.log(`\nload average at the end: ${end1!.toFixed(2)}; run took ${Math.round((Date.now() - started) / 1000)} s`)
  if (failures.length) {
    console.error(`\nbench FAILED:\n${failures.map((f) => `  - ${f}`).join("\n")}`)
    process.exitCode = 1
  }
}

async function runCases(cases: Case[], inputs: Inputs, failures: string[]) {
  const perCase = cases.map(() => ({ latencies: new Latencies(), runs: [] as Measurement[], failed: false }))
  const titleWidth = Math.max(...cases.map((c) => caseTitle(c).length))
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`round ${round}/${ROUNDS}`)
    for (const [i, c] of cases.entries()) {
      const acc = perCase[i]!
      if (acc.failed) continue
      process.stdout.write(`  ${pad(caseTitle(c), titleWidth)}  ${pad(libraryLabel(c), 19)} ... `)
      try {
        const m = await measure(c, acc.latencies, inputs)
        acc.runs.push(m)
        const badCount = m.bad.non2xx + m.bad.mismatches + m.bad.errors + m.bad.timeouts
        console.log(`${fmtInt(m.reqPerSec)} req/s, ${m.total} requests${m.cpuPerRequest === undefined ? "" : `, ${Math.round(m.cpuPerRequest)} µs CPU/req`}${badCount ? `, ${badCount} BAD` : ", all checked"}${m.writes ? `; adapter writes: ${formatWrites(m.writes)}` : ""}`)
        if (badCount) {
          acc.failed = true
          failures.push(`${c.library} ${caseTitle(c)}: correctness guard tripped ${JSON.stringify(m.bad)}`)
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
      memory: runs.at(-1)!.memory,
    })
  }

  const rotations = [...inputs.rotations.entries()].filter(([c]) => (c.sessions ?? 1) > 1)
  const wrapped = rotations.filter(([, r]) => r.sent > r.size).map(([c]) => `${caseTitle(c)} (${c.library})`)
  const report: string[] = ["", ...(rows.length ? printTable(rows) : []), ""]
  report.push(...costCurve(rows), "")
  report.push(...targetsReport(rows))
  const memory = memoryReport(rows)
  if (memory.length) report.push("", "Memory after a full GC at the end of the last round (Portcullis keeps at most 10,000 verified JWTs per configuration):", ...memory)
  const dbRows = rows.filter((r) => r.writes)
  if (dbRows.length) {
    report.push("", `Adapter writes per database row (${ROUNDS} round(s); sessions with 30 days left, updateAge 24 h):`)
    for (const r of dbRows) report.push(`  ${pad(caseTitle(r), titleWidth)}  ${pad(r.library, 11)} ${formatWrites(r.writes!)} over ${fmtInt(r.total)} measured requests`)
  }
  report.push("", wrapped.length
    ? `Rotations that came round again (every cookie sent, then repeated): ${wrapped.join("; ")}`
    : "No rotation with N > 1 came round again: every measured request of those rows carried a cookie not sent before.")
  console.log(report.join("\n"))
  if (process.env.BENCH_JSON) {
    writeFileSync(process.env.BENCH_JSON, JSON.stringify({ node: process.versions.node, cpus: cpus().length, connections: CONNECTIONS, duration: DURATION, warmup: WARMUP, rounds: ROUNDS, quick: QUICK, rows }, null, 2))
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

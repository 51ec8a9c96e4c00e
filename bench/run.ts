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
 * Issue 35: the rows the targets are read from run in five interleaved rounds and are judged
 * on their medians (the others run once); the Node-native Express row against plain
 * node:http (`baseline-native`); the sign-in burst row (p99 of session checks with and
 * without 20 password sign-ins/s, `runBurst`); with `--scale`, the scale rows (database
 * sessions at 1,000 / 100,000 / 1,000,000 stored sessions on PostgreSQL, SQLite and Redis,
 * `bench/scale.ts`) and the store footprint (`bench/footprint.ts`).
 *
 * Usage: `npm run bench` (about 12 minutes), `npm run bench -- --quick` (about 2½ minutes:
 * the rows the targets need, one round), `npm run bench -- --scale` (adds the scale rows and
 * the footprint; the first run seeds the stores, later runs reuse them).
 *
 * Knobs (env): BENCH_DURATION (s per round, default 2), BENCH_WARMUP (s, default 3: long enough for V8 to optimise the libraries' code; production servers run warm),
 * BENCH_ROUNDS (default 5 for the target rows; quick 1), BENCH_CONNECTIONS (default 10), BENCH_PG_URL,
 * BENCH_PROFILE=<dir> (run the Portcullis servers and the floor with --cpu-prof into <dir>),
 * BENCH_ONLY=<comma-separated row ids, e.g. jwt-20000,db-memory-20000, burst, footprint, scale>,
 * BENCH_SCALE_SIZES, BENCH_REDIS_URL, BENCH_BURST_RATE, BENCH_ARGON2, BENCH_JSON=<file>.
 */
import autocannon, { type Request as LoadRequest, type Result } from "autocannon"
import { cpus, loadavg } from "node:os"
import { execFileSync, spawn } from "node:child_process"
import { readFileSync, writeFileSync } from "node:fs"
import { resolve } from "node:path"
import { createBenchDatabase, PG_URL, probePostgres, type BenchDatabase, type BenchDialect } from "./db.ts"
import { getSession, isBenchSession, startServer, startSignInDriver, type RunningServer } from "./harness.ts"
import { startLocalProvider, type LocalProvider } from "./provider.ts"
import { opSelected, runOpRows } from "./op-run.ts"
import { databaseCookies, mintJwtCookies, newRunId, Rotation, SESSION_COOKIE, signedIn } from "./sessions.ts"
import { prepareScaleStore, REDIS_URL, SCALE_SIZES, scaleCookies, usesIndex, type ScaleEnv, type ScaleStore } from "./scale.ts"
import { measureFootprint } from "./footprint.ts"
import { ARGON2_ENV, BURST_VERIFY_ENV, NODE_PATH_ENV, BASE_PATH, BENCH_CREDENTIALS, BUSY_US, DB_ENV, OAUTH_ENV, OAUTH_PROVIDER_ID, DB_TARGETS, EXPRESS_PAGE, EXPRESS_TARGETS, MEMORY_TARGETS, NEXT_TARGETS, SESSIONS_ENV, type Target } from "./shared.ts"

const QUICK = process.argv.includes("--quick") || process.env.BENCH_QUICK === "1"
const DURATION = Number(process.env.BENCH_DURATION ?? 2)
const WARMUP = Number(process.env.BENCH_WARMUP ?? 3)
/**
 * Rounds of the rows a target is read from (the floor and the targets' rows): their median
 * is what the targets are judged on, since one run on a shared machine is noise. The other
 * rows (the rest of the cost curve, sign-ins, calibration) run once, to keep the run bounded.
 */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 5)))
const SCALE = process.argv.includes("--scale") || process.env.BENCH_SCALE === "1"
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10)
const PROFILE_DIR = process.env.BENCH_PROFILE ? resolve(process.env.BENCH_PROFILE) : undefined
const ONLY = process.env.BENCH_ONLY?.split(",").map((s) => s.trim())

type Scenario = "baseline" | "baseline-session" | "baseline-busy" | "baseline-native" | "baseline-native-session" | "baseline-express" | "jwt" | "jwt-telemetry-off" | "reissue" | "db-memory" | "db-sqlite" | "db-postgres" | "express" | "express-native" | "node-native" | "db-memory-node" | "db-sqlite-node" | "next" | "signin" | "oauth" | ScaleScenario
type ScaleScenario = "scale-postgres" | "scale-sqlite" | "scale-redis"
type Library = "node:http + adapter" | "node:http" | "Portcullis" | "@auth/core"

const SCALE_SCENARIOS: Record<ScaleScenario, ScaleStore> = { "scale-postgres": "postgres", "scale-sqlite": "sqlite", "scale-redis": "redis" }
const isScale = (c: { scenario: Scenario }): c is { scenario: ScaleScenario } => c.scenario in SCALE_SCENARIOS
/** The scenarios whose cookies are JWTs of the bench user (minted once per run). */
const JWT_SCENARIOS: readonly Scenario[] = ["jwt", "jwt-telemetry-off", "reissue", "express", "express-native", "node-native", "next", "baseline-session", "baseline-native-session"]
/** Distinct JWT sessions the burst row's checks rotate through. */
const BURST_SESSIONS = 1_000
/** Password sign-ins per second in the burst row. */
const BURST_RATE = Number(process.env.BENCH_BURST_RATE ?? 20)

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
  "baseline-native": "floor, plain node:http: res.end of fixed JSON, no Web Request/Response",
  "baseline-native-session": "floor, plain node:http, session-shaped: a session cookie in, a fixed session answer out",
  "baseline-express": "floor, Express 5: a page route answering res.json({})",
  jwt: "JWT session check",
  "jwt-telemetry-off": "JWT session check, telemetry: false (vs the row above: OTel API, no SDK)",
  reissue: "JWT, re-issued on every check",
  "db-memory": "database session, in-memory adapter",
  "db-sqlite": "database session, SQLite",
  "db-postgres": "database session, PostgreSQL",
  express: "Express getSession(req) per page",
  "express-native": "Express getSession(req) per page, native path, cached JWT",
  "node-native": "core's Node path (handleNodeRequest), GET /session, cached JWT",
  "db-memory-node": "database session, in-memory adapter, core's Node path (handleNodeRequest)",
  "db-sqlite-node": "database session, SQLite, core's Node path (handleNodeRequest)",
  "scale-postgres": "scale: database session, PostgreSQL",
  "scale-sqlite": "scale: database session, SQLite",
  "scale-redis": "scale: database session, Redis",
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

/** Every case of a run; the scale rows only with `withScale` (`--scale`, or BENCH_ONLY naming them). */
function allCases(withScale: boolean): Case[] {
  const cases: Case[] = [
    { scenario: "baseline", library: "node:http + adapter", target: "baseline" },
    { scenario: "baseline-session", library: "node:http + adapter", target: "baseline-session" },
    { scenario: "baseline-busy", library: "node:http + adapter", target: "baseline-busy" },
    { scenario: "baseline-native", library: "node:http", target: "baseline-native" },
    { scenario: "baseline-native-session", library: "node:http", target: "baseline-native-session" },
    { scenario: "baseline-express", library: "node:http", target: "baseline-express" },
  ]
  const curve = QUICK ? [1, COLD] : N_CURVE
  for (const n of curve) cases.push(...pair("jwt", "portcullis", "authjs", n))
  // What tracing costs an app that registered no OpenTelemetry SDK: the same check with the
  // instrumentation switched off. Equal CPU per request here is "zero measurable cost".
  cases.push({ scenario: "jwt-telemetry-off", library: "Portcullis", target: "portcullis-telemetry-off", sessions: COLD })
  if (!QUICK) cases.push(...pair("reissue", "portcullis-reissue", "authjs", 1))
  for (const n of QUICK ? [COLD] : N_CURVE) cases.push(...pair("db-memory", "portcullis-memory", "authjs-memory", n))
  for (const n of QUICK ? [COLD] : [1, COLD]) cases.push(...pair("db-sqlite", "portcullis-sqlite", "authjs-sqlite", n))
  // The same checks as a node:http or Express app serves them (core's Node path); Auth.js has
  // only the Web path, so its rows above are the comparison. Information, not a target.
  cases.push({ scenario: "db-memory-node", library: "Portcullis", target: "portcullis-memory", sessions: COLD })
  cases.push({ scenario: "db-sqlite-node", library: "Portcullis", target: "portcullis-sqlite", sessions: COLD })
  if (!QUICK) cases.push(...pair("db-postgres", "portcullis-postgres", "authjs-postgres", 1_000))
  cases.push(...pair("express", "express-portcullis", "express-authjs", COLD))
  // Issue 35: the Node-native session path, held to the plain node:http floor.
  cases.push({ scenario: "express-native", library: "Portcullis", target: "express-portcullis", sessions: 1 })
  cases.push({ scenario: "node-native", library: "Portcullis", target: "node-portcullis", sessions: 1 })
  cases.push(...pair("next", "next-portcullis", "next-authjs", COLD))
  cases.push(...pair("signin", "portcullis", "authjs"))
  cases.push(...pair("oauth", "portcullis", "authjs"))
  if (withScale) {
    for (const n of SCALE_SIZES) {
      cases.push(...pair("scale-postgres", "portcullis-postgres", "authjs-pg", n))
      cases.push(...pair("scale-sqlite", "portcullis-sqlite", "authjs-sqlite", n))
      cases.push(...pair("scale-redis", "portcullis-redis", "authjs-redis", n))
    }
  }
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
  /** Median of the rounds' req/s. */
  reqPerSec: number
  rounds: number[]
  /** Each round's server CPU µs per request (the row's figure is their median). */
  cpuRounds: number[]
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
  /** The scale rows' stores, by `<store>:<n>`. */
  scale: Map<string, ScaleEnv>
}

function rotationOf(c: Case, inputs: Inputs): Rotation {
  let rotation = inputs.rotations.get(c)
  if (!rotation) {
    const n = c.sessions ?? 1
    const cookies = JWT_SCENARIOS.includes(c.scenario)
      ? inputs.jwtCookies.slice(0, n)
      : isScale(c) ? scaleCookies(n) : databaseCookies(inputs.runId, n)
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

async function measure(c: Case, latencies: Latencies, inputs: Inputs): Promise<Measurement> {
  const profiling = PROFILE_DIR && (c.library === "Portcullis" || c.library === "node:http + adapter")
  const execArgv = ["--expose-gc", ...(profiling ? ["--cpu-prof", "--cpu-prof-interval=250", `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${caseId(c)}-${c.target}-${Date.now()}.cpuprofile`] : [])]
  const dialect = isScale(c) ? undefined : DB_TARGETS[c.target]
  const database = dialect && inputs.databases[dialect]
  if (dialect && !database) throw new BenchFailure(`${c.library} (${c.target}): no ${dialect} database`)
  const env: Record<string, string> = {}
  if (database) env[DB_ENV] = JSON.stringify(database.spec)
  if (isScale(c)) {
    const store = inputs.scale.get(`${SCALE_SCENARIOS[c.scenario]}:${c.sessions}`)
    if (!store) throw new BenchFailure(`${c.library} (${c.target}): no ${SCALE_SCENARIOS[c.scenario]} store of ${c.sessions} sessions`)
    Object.assign(env, c.library === "Portcullis" ? store.portcullis : store.authjs)
  }
  if (MEMORY_TARGETS.includes(c.target)) env[SESSIONS_ENV] = `${c.sessions ?? 1}:${inputs.runId}`
  if (c.scenario === "db-memory-node" || c.scenario === "db-sqlite-node") env[NODE_PATH_ENV] = "1"
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
    if (c.scenario === "baseline" || c.scenario === "baseline-busy" || c.scenario === "baseline-native" || c.scenario === "baseline-express") {
      const path = c.scenario === "baseline-express" ? EXPRESS_PAGE : "/"
      spec = { url: `${server.url}${path}`, request: { method: "GET", path }, verifyBody: (body) => body === "{}", extraBad: { count: 0 } }
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
      writes: dialect || isScale(c) || MEMORY_TARGETS.includes(c.target) ? server.stats.writes : undefined,
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
  const header = ["scenario", "library", "req/s median (min–max, rounds)", "p50 ms", "p99 ms", "of floor", "server CPU µs/req median (min–max)", "cookie re-issued", "ratio P/A", "CPU ratio A/P"]
  const lines: string[][] = []
  for (const r of rows) {
    const other = r.library === "Portcullis" ? counterpart(rows, r) : undefined
    lines.push([
      caseTitle(r),
      libraryLabel(r),
      fmtInt(r.reqPerSec) + (r.rounds.length > 1 ? ` (${fmtInt(Math.min(...r.rounds))}–${fmtInt(Math.max(...r.rounds))}, n=${r.rounds.length})` : ""),
      r.p50.toFixed(2),
      r.p99.toFixed(2),
      floor ? `${Math.round((100 * r.reqPerSec) / floor.reqPerSec)}%` : "",
      r.cpuPerRequest === undefined ? "-" : Math.round(r.cpuPerRequest).toString() + (r.cpuRounds.length > 1 ? ` (${Math.round(Math.min(...r.cpuRounds))}–${Math.round(Math.max(...r.cpuRounds))})` : ""),
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
  ofShaped(`database sessions, in-memory adapter (N=${fmtInt(COLD)})`, "db-memory", COLD)
  versus(`database sessions, SQLite (N=${fmtInt(COLD)})`, "db-sqlite", COLD, 2, false)
  // Not a target: the same two on core's Node path (what a node:http or Express app runs)
  // against Auth.js's rows above (its only path is the Web one).
  for (const [label, scenario, web] of [["in-memory adapter", "db-memory-node", "db-memory"], ["SQLite", "db-sqlite-node", "db-sqlite"]] as const) {
    const p = find(scenario, "Portcullis", COLD)
    const a = find(web, "@auth/core", COLD)
    if (p && a) {
      out.push(`  (info) database sessions, ${label} (N=${fmtInt(COLD)}), on core's Node path: ${(p.reqPerSec / a.reqPerSec).toFixed(2)}× ${libraryLabel(a)} req/s (${fmtInt(p.reqPerSec)} vs ${fmtInt(a.reqPerSec)})` +
        (p.cpuPerRequest && a.cpuPerRequest ? `, ${(a.cpuPerRequest / p.cpuPerRequest).toFixed(2)}× CPU (${Math.round(a.cpuPerRequest)} vs ${Math.round(p.cpuPerRequest)} µs/req)` : ""))
    }
  }
  versus(`Express getSession(req), cold JWT (N=${fmtInt(COLD)})`, "express", COLD, 3, false)
  versus(`Next.js auth(req, res), cold JWT (N=${fmtInt(COLD)})`, "next", COLD, 3, false)
  // Issue 35: the native path, a cached JWT, within 2× of plain node:http. Read on core's Node
  // path itself (what Express's handler and getSession(req), and Next's Pages `auth(req, res)`,
  // run for a session check): Express alone costs more than twice plain node:http, so on
  // Express the figure is given as information, against Express's own floor.
  const plain = rows.find((r) => r.scenario === "baseline-native")
  const core = find("node-native", "Portcullis", 1)
  if (plain && core) {
    const share = core.reqPerSec / plain.reqPerSec
    const cpu = core.cpuPerRequest && plain.cpuPerRequest ? core.cpuPerRequest / plain.cpuPerRequest : undefined
    out.push(`${verdict(share >= 0.5 && (cpu === undefined || cpu <= 2))}  native session path (core's handleNodeRequest), cached JWT, within 2× of plain node:http: ${Math.round(share * 100)}% of its req/s (${fmtInt(core.reqPerSec)} vs ${fmtInt(plain.reqPerSec)})` +
      (cpu ? `, ${cpu.toFixed(2)}× its CPU/request (${Math.round(core.cpuPerRequest!)} vs ${Math.round(plain.cpuPerRequest!)} µs)` : ""))
    // Not a target: the same check against plain node:http answering what a session check
    // answers (the cookie in; the session answer's five headers and body out): how much of
    // the distance to `{}` is the answer itself, which every server of a session check sends.
    const shapedPlain = rows.find((r) => r.scenario === "baseline-native-session")
    if (shapedPlain) {
      const shapedCpu = core.cpuPerRequest && shapedPlain.cpuPerRequest ? core.cpuPerRequest / shapedPlain.cpuPerRequest : undefined
      out.push(`  (info) the same against plain node:http answering the session answer itself: ${Math.round((core.reqPerSec / shapedPlain.reqPerSec) * 100)}% of its req/s (${fmtInt(core.reqPerSec)} vs ${fmtInt(shapedPlain.reqPerSec)})` +
        (shapedCpu ? `, ${shapedCpu.toFixed(2)}× its CPU/request (${Math.round(core.cpuPerRequest!)} vs ${Math.round(shapedPlain.cpuPerRequest!)} µs)` : ""))
    }
  }
  const native = find("express-native", "Portcullis", 1)
  if (plain && native) {
    const share = native.reqPerSec / plain.reqPerSec
    const cpu = native.cpuPerRequest && plain.cpuPerRequest ? native.cpuPerRequest / plain.cpuPerRequest : undefined
    out.push(`  (info) Express getSession(req), native path, cached JWT, against plain node:http: ${Math.round(share * 100)}% of its req/s (${fmtInt(native.reqPerSec)} vs ${fmtInt(plain.reqPerSec)})` +
      (cpu ? `, ${cpu.toFixed(2)}× its CPU/request (${Math.round(native.cpuPerRequest!)} vs ${Math.round(plain.cpuPerRequest!)} µs)` : ""))
    // Not a target: how much of that is Express's own routing and res.json, with no session at all.
    const bare = rows.find((r) => r.scenario === "baseline-express")
    if (bare?.cpuPerRequest && native.cpuPerRequest && plain.cpuPerRequest) {
      out.push(`  (info) Express alone (a page answering res.json({})): ${Math.round(bare.cpuPerRequest)} µs CPU/request, ${Math.round((100 * bare.reqPerSec) / plain.reqPerSec)}% of plain node:http's req/s; getSession(req) adds ${Math.round(native.cpuPerRequest - bare.cpuPerRequest)} µs to it`)
    }
  }
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
  // The scale rows bring their own stores (`setUpScale`); only PostgreSQL's reachability is shared.
  const wanted = new Set(cases.filter((c) => !isScale(c) || c.scenario === "scale-postgres").map((c) => DB_TARGETS[c.target]).filter((d) => d !== undefined))
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
    const rows = cases.filter((c) => !isScale(c) && DB_TARGETS[c.target] === dialect)
    if (!rows.length) continue
    try {
      const database = await createBenchDatabase(dialect)
      databases[dialect] = database
      const n = Math.max(...rows.map((c) => c.sessions ?? 1))
      await database.seedSessions(runId, n)
    } catch (error) {
      // Reachable but unusable (say, no permission to create tables): that is a failure.
      failures.push(`${dialect} database setup failed: ${(error as Error).message}`)
      cases = cases.filter((c) => isScale(c) || DB_TARGETS[c.target] !== dialect)
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
  const withScale = SCALE || (ONLY?.some((id) => id === "scale" || id.startsWith("scale-")) ?? false)
  const selected = ONLY
    ? allCases(withScale).filter((c) => ONLY.includes(caseId(c)) || ONLY.includes(c.target) || (ONLY.includes("scale") && isScale(c)))
    : allCases(withScale)
  // The burst row runs in every full and quick run (its target is restated with the others);
  // the footprint with the scale rows. BENCH_ONLY names them `burst` and `footprint`.
  const burst = ONLY ? ONLY.includes("burst") : true
  const footprint = ONLY ? ONLY.includes("footprint") : SCALE
  const runId = newRunId()
  const jwtN = Math.max(burst ? BURST_SESSIONS : 0, ...selected.filter((c) => JWT_SCENARIOS.includes(c.scenario)).map((c) => c.sessions ?? 1))
  const started = Date.now()
  const jwtCookies = jwtN ? await mintJwtCookies(jwtN) : []
  if (jwtN) console.log(`minted ${fmtInt(jwtN)} distinct JWT session cookies in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  const { cases: unscaled, databases } = await setUpDatabases(selected, runId, failures)
  const { cases, stores } = await setUpScale(unscaled, failures)
  const provider = cases.some((c) => c.scenario === "oauth") ? await startLocalProvider() : undefined
  const inputs: Inputs = { jwtCookies, runId, databases, rotations: new Map(), provider, scale: stores }
  const extras: Extras = { targets: [], sections: [] }
  try {
    if (burst) await runBurst(inputs, failures, extras)
    if (footprint) await runFootprint(extras)
    if (cases.length) await runCases(cases, inputs, failures, extras)
    else if (extras.sections.length || extras.targets.length) {
      // No rows (BENCH_ONLY=burst, footprint): their report is printed on its own.
      const report = [""]
      for (const section of extras.sections) report.push(...section, "")
      if (extras.targets.length) report.push(`Targets (issue 35), read from ${ROUNDS} round(s):`, ...extras.targets)
      console.log(report.join("\n"))
    }
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

/** Report lines from the measures outside the rows (burst, footprint): targets, and sections of their own. */
interface Extras {
  targets: string[]
  sections: string[][]
}

async function runCases(cases: Case[], inputs: Inputs, failures: string[], extras: Extras) {
  const perCase = cases.map(() => ({ latencies: new Latencies(), runs: [] as Measurement[], failed: false }))
  const titleWidth = Math.max(...cases.map((c) => caseTitle(c).length))
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`round ${round}/${ROUNDS}`)
    for (const [i, c] of cases.entries()) {
      const acc = perCase[i]!
      if (acc.failed || (round > 1 && !isTargetRow(c))) continue
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
      // The median of the rounds: one slow (or lucky) round on a shared machine moves it least.
      reqPerSec: median(runs.map((m) => m.reqPerSec)),
      rounds: runs.map((m) => m.reqPerSec),
      p50: latencies.percentile(50),
      p99: latencies.percentile(99),
      total: runs.reduce((sum, m) => sum + m.total, 0),
      reissued: runs[0]!.reissued,
      cpuPerRequest: runs.every((m) => m.cpuPerRequest !== undefined) ? median(runs.map((m) => m.cpuPerRequest!)) : undefined,
      cpuRounds: runs.every((m) => m.cpuPerRequest !== undefined) ? runs.map((m) => m.cpuPerRequest!) : [],
      writes: runs[0]!.writes ? sumWrites(runs.map((m) => m.writes!)) : undefined,
      memory: runs.at(-1)!.memory,
    })
  }

  const rotations = [...inputs.rotations.entries()].filter(([c]) => (c.sessions ?? 1) > 1)
  const wrapped = rotations.filter(([, r]) => r.sent > r.size).map(([c]) => `${caseTitle(c)} (${c.library})`)
  const report: string[] = ["", ...(rows.length ? printTable(rows) : []), ""]
  report.push(...costCurve(rows), "")
  const scale = scaleReport(rows, inputs)
  if (scale.length) report.push(...scale, "")
  for (const section of extras.sections) report.push(...section, "")
  const verdicts = [...targetsReport(rows), ...extras.targets]
  if (verdicts.length) report.push(`Targets (issue 35), read from the medians of ${ROUNDS} round(s):`, ...verdicts)
  const memory = memoryReport(rows)
  if (memory.length) report.push("", "Memory after a full GC at the end of the last round (Portcullis keeps at most 10,000 verified JWTs per configuration):", ...memory)
  const dbRows = rows.filter((r) => r.writes)
  if (dbRows.length) {
    report.push("", `Adapter writes per database row (${ROUNDS} round(s); sessions with 30 days left — a year on the scale rows — updateAge 24 h):`)
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

/**
 * Makes the scale rows' stores ready (reused when they hold what is wanted, else seeded in
 * bulk; `bench/scale.ts`) and prints each lookup's plan. A store that does not answer skips
 * its rows with one line; one that answers but cannot be prepared fails the run.
 */
async function setUpScale(cases: Case[], failures: string[]): Promise<{ cases: Case[]; stores: Map<string, ScaleEnv> }> {
  const stores = new Map<string, ScaleEnv>()
  const wanted = [...new Set(cases.filter(isScale).map((c) => `${SCALE_SCENARIOS[c.scenario as ScaleScenario]}:${c.sessions}`))]
  if (!wanted.length) return { cases, stores }
  console.log("scale stores (reused when they hold exactly the sessions wanted, else seeded in bulk):")
  const reachable: Partial<Record<ScaleStore, boolean>> = {}
  const reach = async (store: ScaleStore) => {
    if (reachable[store] !== undefined) return reachable[store]
    try {
      if (store === "postgres") await probePostgres()
      if (store === "redis") await pingRedis()
      reachable[store] = true
    } catch (error) {
      console.log(`  ${store} unreachable (${(error as Error).message}): skipping its scale rows`)
      reachable[store] = false
    }
    return reachable[store]
  }
  for (const key of wanted) {
    const [store, n] = key.split(":") as [ScaleStore, string]
    if (!(await reach(store))) continue
    try {
      const env = await prepareScaleStore(store, Number(n), DB_ENV, (line) => console.log(line))
      stores.set(key, env)
      if (store !== "redis") {
        const plan = (lines: string[]) => lines.map((l) => `      ${l}`).join("\n")
        console.log(`    Portcullis's session lookup plan:\n${plan(env.plans.portcullis)}`)
        if (store === "postgres") console.log(`    @auth/pg-adapter's session lookup plan (its documented schema):\n${plan(env.plans.authjs)}`)
      }
    } catch (error) {
      failures.push(`scale store ${key} could not be prepared: ${(error as Error).message}`)
    }
  }
  console.log("")
  return { cases: cases.filter((c) => !isScale(c) || stores.has(`${SCALE_SCENARIOS[c.scenario as ScaleScenario]}:${c.sessions}`)), stores }
}

async function pingRedis(): Promise<void> {
  const { Redis } = await import("ioredis")
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 3_000, maxRetriesPerRequest: 0, retryStrategy: () => null })
  client.on("error", () => {})
  try {
    await client.connect()
    await client.ping()
  } finally {
    client.disconnect()
  }
}

/** The scale rows: server CPU µs (and req/s) per check against the number of stored sessions, with each lookup's index plan. */
function scaleReport(rows: Row[], inputs: Inputs): string[] {
  const scaled = rows.filter(isScale)
  if (!scaled.length) return []
  const ns = [...new Set(scaled.map((r) => r.sessions!))].sort((a, b) => a - b)
  const columns = (Object.keys(SCALE_SCENARIOS) as ScaleScenario[]).flatMap((k) => (["Portcullis", "@auth/core"] as Library[]).map((l) => [k, l] as const))
    .filter(([k, l]) => scaled.some((r) => r.scenario === k && r.library === l))
  const label = (k: ScaleScenario, l: Library) => `${SCALE_SCENARIOS[k]} ${l === "Portcullis" ? "P" : "A"}`
  const cell = (k: ScaleScenario, l: Library, n: number) => {
    const r = scaled.find((x) => x.scenario === k && x.library === l && x.sessions === n)
    return r ? `${r.cpuPerRequest === undefined ? "-" : Math.round(r.cpuPerRequest)} µs, ${fmtInt(r.reqPerSec)}/s` : ""
  }
  const out = [`Scale: server CPU µs and req/s per GET ${BASE_PATH}/session against stored sessions (P = Portcullis, A = @auth/core; PostgreSQL A = @auth/pg-adapter, Redis A = @auth/unstorage-adapter, SQLite both on SqlAdapter)`, ""]
  out.push(...table(["stored sessions", ...columns.map(([k, l]) => label(k, l))], ns.map((n) => [fmtInt(n), ...columns.map(([k, l]) => cell(k, l, n))]), new Set(columns.map((_, i) => i + 1).concat(0))))
  out.push("", "Index plans of the session lookup (EXPLAIN on the store of each size):")
  for (const [key, env] of inputs.scale) {
    const [store] = key.split(":") as [ScaleStore]
    if (store === "redis") continue
    const spec = JSON.parse(env.portcullis[DB_ENV]!) as { tables: { sessions: string } }
    const ok = usesIndex(env.plans.portcullis, store, spec.tables.sessions)
    const authjs = store === "postgres" ? `; @auth/pg-adapter: ${env.plans.authjs.some((l) => /Seq Scan/.test(l)) ? "sequential scan (its documented schema has no index on \"sessionToken\")" : "index"}` : ""
    out.push(`  ${key.replace(":", ", ")} sessions: Portcullis ${ok ? "index scan (checked)" : "NO INDEX SCAN"}${authjs}`)
  }
  return out
}

/**
 * p99 of session checks with and without password sign-ins running at BENCH_BURST_RATE
 * (20) per second, in one server (`portcullis-burst`: JWT sessions, the sign-in verifying
 * an argon2id hash). The two phases alternate for ROUNDS rounds; the target is the p99
 * with the burst at most twice the p99 without: argon2id must not stall the event loop.
 *
 * A second server answers the same sign-ins with the password compared instead of hashed
 * (BURST_VERIFY_ENV), printed as `(info)`: what the sign-in requests cost the checks on
 * the event loop, apart from what the hashing costs them on the machine's cores.
 */
async function runBurst(inputs: Inputs, failures: string[], extras: Extras): Promise<void> {
  const title = `session checks (N=${fmtInt(BURST_SESSIONS)} JWTs) with and without ${BURST_RATE} password sign-ins/s`
  const { argon2Backend } = await import("../packages/core/dist/lib/password/argon2.js")
  const implementation = (await argon2Backend(process.env[ARGON2_ENV] as "native" | "wasm" | undefined)).name
  process.stdout.write(`  ${title} ... `)
  const hashed = await measureBurst(inputs, failures, {})
  if (!hashed) return
  console.log(`p99 ${hashed.p99Quiet.toFixed(2)} ms without, ${hashed.p99Busy.toFixed(2)} ms with (${hashed.ratio.toFixed(2)}×); ${hashed.signIns} sign-ins (${hashed.rate.toFixed(1)}/s), argon2id ${implementation}`)
  process.stdout.write(`  the same, the password compared instead of hashed (info) ... `)
  const compared = await measureBurst(inputs, failures, { [BURST_VERIFY_ENV]: "compare" })
  if (compared) console.log(`p99 ${compared.p99Quiet.toFixed(2)} ms without, ${compared.p99Busy.toFixed(2)} ms with (${compared.ratio.toFixed(2)}×); ${compared.signIns} sign-ins (${compared.rate.toFixed(1)}/s)`)
  const row = (label: string, m: BurstMeasure, rate: string) => [label, m.p50.toFixed(2), m.p99.toFixed(2), rate]
  extras.sections.push([
    `Sign-in burst: ${title} (argon2id ${implementation}; ${ROUNDS} alternation(s) of ${DURATION}s without, ${DURATION}s with)`,
    "",
    ...table(["phase", "p50 ms", "p99 ms", "sign-ins/s"], [
      row("session checks alone", hashed.quiet, "0"),
      row("session checks + sign-ins", hashed.busy, hashed.rate.toFixed(1)),
      ...(compared
        ? [
            row("(info) alone, second server", compared.quiet, "0"),
            row("(info) + the same sign-ins, password compared", compared.busy, compared.rate.toFixed(1)),
          ]
        : []),
    ], new Set([1, 2, 3])),
  ])
  extras.targets.push(`${hashed.ratio <= 2 ? "MET" : "NOT MET"}  p99 of session checks with ${BURST_RATE} password sign-ins/s ≤ 2× without (argon2id ${implementation}): ${hashed.p99Busy.toFixed(2)} vs ${hashed.p99Quiet.toFixed(2)} ms, ${hashed.ratio.toFixed(2)}×`)
  if (compared) {
    extras.targets.push(`  (info) the same sign-ins with the password compared instead of hashed: ${compared.p99Busy.toFixed(2)} vs ${compared.p99Quiet.toFixed(2)} ms, ${compared.ratio.toFixed(2)}× — what the sign-in requests cost the checks on the event loop; the rest of the row's ratio is the hashing's share of the machine's ${cpus().length} cores`)
  }
}

interface BurstMeasure {
  p50: number
  p99: number
}

/** One burst measurement on a fresh `portcullis-burst` server started with `env`; `undefined` (and a failure) if it could not run. */
async function measureBurst(inputs: Inputs, failures: string[], env: Record<string, string>) {
  let server: RunningServer
  try {
    server = await startServer("portcullis-burst", { execArgv: ["--expose-gc"], timeoutMs: 60_000, env })
  } catch (error) {
    console.log("FAILED")
    failures.push(`burst row: ${(error as Error).message}`)
    return undefined
  }
  let driver: Awaited<ReturnType<typeof startSignInDriver>> | undefined
  try {
    const rotation = new Rotation(inputs.jwtCookies.slice(0, BURST_SESSIONS))
    const path = `${BASE_PATH}/session`
    const spec: Load = {
      url: server.url + path,
      request: { method: "GET", path, setupRequest: (request) => ({ ...request, headers: { cookie: rotation.next() } }) },
      verifyBody: isSessionBody,
      extraBad: { count: 0 },
    }
    const signIn = await credentialsLoad(server)
    const signIns = { ok: 0, failed: 0 }
    // From a process of its own (`burst-signins.ts`): sign-ins sent from this event loop
    // would hold up autocannon reading the checks' answers, and count as server latency.
    driver = await startSignInDriver({ url: signIn.url, headers: signIn.request.headers as Record<string, string>, body: signIn.request.body as string, rate: BURST_RATE })
    const signInDriver = driver
    const burst = async (seconds: number, latencies?: Latencies) => {
      signInDriver.start()
      const result = await load(spec, seconds, latencies)
      const counts = await signInDriver.stop()
      signIns.ok += counts.ok
      signIns.failed += counts.failed
      return result
    }
    if (WARMUP > 0) {
      await load(spec, WARMUP / 2)
      await burst(WARMUP / 2)
    }
    signIns.ok = 0
    const quiet = new Latencies()
    const busy = new Latencies()
    const bad = { non2xx: 0, mismatches: 0, errors: 0, timeouts: 0 }
    const count = (result: Result) => {
      bad.non2xx += result.non2xx
      bad.mismatches += result.mismatches
      bad.errors += result.errors
      bad.timeouts += result.timeouts
    }
    for (let round = 0; round < ROUNDS; round++) {
      count(await load(spec, DURATION, quiet))
      count(await burst(DURATION, busy))
    }
    if (server.exited) throw new BenchFailure(`burst row: the server exited (${JSON.stringify(server.exited)})`)
    const badCount = bad.non2xx + bad.mismatches + bad.errors + bad.timeouts
    if (badCount || signIns.failed) failures.push(`burst row: correctness guard tripped ${JSON.stringify({ ...bad, failedSignIns: signIns.failed })}`)
    const p99Quiet = quiet.percentile(99)
    const p99Busy = busy.percentile(99)
    return {
      p99Quiet,
      p99Busy,
      ratio: p99Busy / p99Quiet,
      signIns: signIns.ok,
      rate: signIns.ok / (ROUNDS * DURATION),
      quiet: { p50: quiet.percentile(50), p99: p99Quiet } satisfies BurstMeasure,
      busy: { p50: busy.percentile(50), p99: p99Busy } satisfies BurstMeasure,
    }
  } catch (error) {
    console.log("FAILED")
    if (!(error instanceof BenchFailure)) throw error
    failures.push(error.message)
    return undefined
  } finally {
    driver?.close()
    await server.stop()
  }
}

/** The store footprint rows (`bench/footprint.ts`). */
async function runFootprint(extras: Extras): Promise<void> {
  console.log("  store footprint ...")
  const rows = await measureFootprint((line) => console.log(line))
  const bytes = (n: number) => (n >= 10 * 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${Math.round(n).toLocaleString("en-US")} B`)
  extras.sections.push([
    "Store footprint (each written through the real store; bytes per record, or per the count named):",
    "",
    ...table(["store", "what", "bytes", "how"], rows.map((r) => [r.store, r.what, bytes(r.bytes), r.note]), new Set([2])),
  ])
}

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * The rows the restated targets (issue 35) are read from, and the floor they are read
 * against: these run in every round; the others once.
 */
function isTargetRow(c: Case): boolean {
  if (c.scenario === "baseline" || c.scenario === "baseline-native" || c.scenario === "baseline-native-session") return true
  // The hot JWT target reads Portcullis against the floor only; the cold one both libraries.
  if (c.scenario === "jwt") return (c.sessions === 1 && c.library === "Portcullis") || c.sessions === COLD
  if (c.scenario === "express-native" || c.scenario === "node-native") return true
  return (c.scenario === "db-memory" || c.scenario === "db-sqlite" || c.scenario === "db-memory-node" || c.scenario === "db-sqlite-node" || c.scenario === "express" || c.scenario === "next") && c.sessions === COLD
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

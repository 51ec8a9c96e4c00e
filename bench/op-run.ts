/**
 * The OpenID Provider rows of `npm run bench` (issue 34): Portcullis's `oidcProvider` against
 * oidc-provider v9 with the equivalent configuration (`op-server.ts`), in the same run,
 * interleaved rounds (every row and library once, then again), each measurement on a fresh
 * server process.
 *
 * - `op-token-code`: `POST token`, `grant_type=authorization_code`; every request redeems a
 *   distinct code minted beforehand in the server through the library's own store/API
 *   (`GET /bench/codes?n=`, outside the measured window) and handed out from a pool by
 *   autocannon's request hook. Correct: a 200 with `access_token` and `id_token`.
 * - `op-token-refresh`: `POST token`, `grant_type=refresh_token`; chained: every token is
 *   sent once, and the answer's new refresh token is sent next (2 × connections chains, each
 *   started by a code exchange). Correct: a 200 whose `refresh_token` is new.
 * - `op-userinfo`: `GET userinfo` with a valid access token. Correct: a 200 with the bench
 *   user's `sub`.
 *
 * Selected by `BENCH_ONLY=op` (or a row id, or a target name); part of the full run.
 */
import autocannon, { type Request as LoadRequest, type Result } from "autocannon"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { startServer, type RunningServer } from "./harness.ts"
import { basicAuth } from "./op-server.ts"
import { OP_CLIENT, OP_PATHS, OP_TARGETS, OP_VERIFIER, type OpTarget } from "./op-shared.ts"
import { BENCH_USER, type Target } from "./shared.ts"

export const OP_ROWS = ["op-token-code", "op-token-refresh", "op-userinfo"] as const
export type OpRow = (typeof OP_ROWS)[number]

const TITLES: Record<OpRow, string> = {
  "op-token-code": "OP token: authorization_code exchange",
  "op-token-refresh": "OP token: refresh_token (rotated)",
  "op-userinfo": "OP userinfo",
}
const TARGET_LABELS: Record<OpRow, string> = {
  "op-token-code": "OP token code",
  "op-token-refresh": "OP token refresh",
  "op-userinfo": "OP userinfo",
}
const LIBRARIES: Record<OpTarget, string> = { "op-portcullis": "Portcullis", "op-oidc-provider": "oidc-provider 9" }
/** The issue's target: Portcullis at least twice oidc-provider's throughput. */
const WANTED = 2

export interface OpOptions {
  rounds: number
  duration: number
  warmup: number
  connections: number
  only?: string[]
  profileDir?: string
}

/** Whether `BENCH_ONLY` (absent: everything) asks for any OP row. */
export function opSelected(only: string[] | undefined): boolean {
  return !only || only.some((id) => id === "op" || (OP_ROWS as readonly string[]).includes(id) || (OP_TARGETS as readonly string[]).includes(id))
}

function selectedRows(only: string[] | undefined): OpRow[] {
  if (!only || only.includes("op") || only.some((id) => (OP_TARGETS as readonly string[]).includes(id))) return [...OP_ROWS]
  return OP_ROWS.filter((row) => only.includes(row))
}

interface Measurement {
  reqPerSec: number
  total: number
  cpuPerRequest: number | undefined
  /** Codes the pool had to mint while the measurement ran (0 when the pre-minted batch sufficed). */
  mintedDuring: number
  bad: number
}

/** Clock ticks per second of /proc/<pid>/stat. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/** CPU µs (user + system) a process has used, from /proc (Linux; undefined elsewhere). */
function cpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS
  } catch {
    return undefined
  }
}

/**
 * Codes minted by the server, handed out one per request. Filled before each phase with what
 * the phase should need; should it run low anyway, it tops itself up in the background (and
 * counts those codes, which the report prints: they were minted inside the measured window).
 */
class CodePool {
  #codes: string[] = []
  #filling: Promise<void> | undefined
  minted = 0
  readonly url: string
  constructor(url: string) {
    this.url = url
  }
  async fill(n: number): Promise<void> {
    while (this.#codes.length < n) {
      const batch = Math.min(20_000, n - this.#codes.length)
      const response = await fetch(`${this.url}/bench/codes?n=${batch}`)
      if (response.status !== 200) throw new Error(`GET /bench/codes answered ${response.status}`)
      const codes = (await response.json()) as string[]
      this.minted += codes.length
      this.#codes.push(...codes)
    }
  }
  take(): string {
    if (this.#codes.length < 1_000 && !this.#filling) {
      this.#filling = this.fill(this.#codes.length + 2_000).finally(() => (this.#filling = undefined))
      this.#filling.catch(() => {})
    }
    // An empty pool sends a code that does not exist: the guard counts its 400.
    return this.#codes.pop() ?? "pool-ran-dry"
  }
}

const form = "application/x-www-form-urlencoded"

/** One exchange outside the load: a refresh token to start a chain from. */
async function exchange(url: string, target: OpTarget, code: string): Promise<{ refresh_token?: string; access_token?: string; id_token?: string }> {
  const response = await fetch(url + OP_PATHS[target].token, {
    method: "POST",
    headers: { "content-type": form, authorization: basicAuth() },
    body: new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: OP_CLIENT.redirectUri, code_verifier: OP_VERIFIER }),
  })
  const body = (await response.json()) as { refresh_token?: string; access_token?: string; id_token?: string }
  if (response.status !== 200) throw new Error(`code exchange answered ${response.status}: ${JSON.stringify(body)}`)
  return body
}

function parse(body: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(body) as Record<string, unknown>
  } catch {
    return undefined
  }
}

/** What a row sends, and how each answer is checked. */
interface Load {
  request: LoadRequest
  verifyBody: (body: string) => boolean
  /** Answers the body check passed but the chain check did not. */
  extraBad: { count: number }
  /** Prepares the next phase (fills the pool, seeds the chains). */
  before(seconds: number, expectedRate: number): Promise<void>
}

async function loadFor(row: OpRow, target: OpTarget, server: RunningServer, connections: number): Promise<{ load: Load; pool?: CodePool }> {
  const headers = { "content-type": form, authorization: basicAuth() }
  const tokenPath = OP_PATHS[target].token
  if (row === "op-token-code") {
    const pool = new CodePool(server.url)
    const common = `&redirect_uri=${encodeURIComponent(OP_CLIENT.redirectUri)}&code_verifier=${OP_VERIFIER}`
    return {
      pool,
      load: {
        request: {
          method: "POST",
          path: tokenPath,
          headers,
          setupRequest: (request) => ({ ...request, body: `grant_type=authorization_code&code=${encodeURIComponent(pool.take())}${common}` }),
        },
        verifyBody: (body) => {
          const answer = parse(body)
          return typeof answer?.access_token === "string" && typeof answer.id_token === "string"
        },
        extraBad: { count: 0 },
        // Three times what the phase needs at the fastest rate measured so far (rounds on a
        // shared machine differ by 2× and more), at least 10,000: a refill inside the measured
        // window would charge the minting to the row.
        before: (seconds, rate) => pool.fill(Math.max(10_000, Math.ceil(rate * seconds * 3))),
      },
    }
  }
  if (row === "op-token-refresh") {
    // The live refresh tokens, each to be sent once: a request takes one, its answer puts
    // the rotated successor back. (autocannon resets a connection's context after every
    // request of a one-request list, so the chain cannot live there; the queue holds one
    // chain per token in flight, which is what a client refreshing its own token does.)
    const live: string[] = []
    const extraBad = { count: 0 }
    const seedPool = new CodePool(server.url)
    return {
      load: {
        request: {
          method: "POST",
          path: tokenPath,
          headers,
          setupRequest: (request, context) => {
            const token = live.shift() ?? "no-live-token-left"
            context.sent = token
            return { ...request, body: `grant_type=refresh_token&refresh_token=${encodeURIComponent(token)}` }
          },
          onResponse: (status, body, context) => {
            const next = status === 200 ? parse(body)?.refresh_token : undefined
            if (typeof next !== "string" || next === context.sent) extraBad.count++
            else live.push(next)
          },
        },
        verifyBody: (body) => {
          const answer = parse(body)
          return typeof answer?.access_token === "string" && typeof answer.refresh_token === "string"
        },
        extraBad,
        // Twice as many chains as connections, each started from a code exchange of its own.
        before: async () => {
          live.length = 0
          await seedPool.fill(connections * 2)
          for (let i = 0; i < connections * 2; i++) {
            const { refresh_token } = await exchange(server.url, target, seedPool.take())
            if (!refresh_token) throw new Error("the code exchange answered no refresh_token")
            live.push(refresh_token)
          }
        },
      },
    }
  }
  const tokenResponse = await fetch(`${server.url}/bench/userinfo-token`)
  const { token } = (await tokenResponse.json()) as { token: string }
  return {
    load: {
      request: { method: "GET", path: OP_PATHS[target].userinfo, headers: { authorization: `Bearer ${token}` } },
      verifyBody: (body) => parse(body)?.sub === BENCH_USER.id,
      extraBad: { count: 0 },
      before: async () => {},
    },
  }
}

function run(url: string, load: Load, seconds: number, connections: number): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(
      { url, connections, duration: seconds, requests: [load.request], verifyBody: load.verifyBody },
      (error, result) => (error ? reject(error) : resolve(result)),
    )
  })
}

async function measure(row: OpRow, target: OpTarget, options: OpOptions, lastRate: number): Promise<Measurement> {
  const profiling = options.profileDir && target === "op-portcullis"
  const execArgv = profiling ? ["--cpu-prof", "--cpu-prof-interval=250", `--cpu-prof-dir=${options.profileDir}`, `--cpu-prof-name=${row}-${target}-${Date.now()}.cpuprofile`] : []
  const server = await startServer(target as Target, { execArgv, timeoutMs: 60_000 })
  try {
    const { load, pool } = await loadFor(row, target, server, options.connections)
    if (options.warmup > 0) {
      await load.before(options.warmup, lastRate)
      await run(server.url, load, options.warmup, options.connections)
    }
    await load.before(options.duration, lastRate)
    load.extraBad.count = 0
    const mintedBefore = pool?.minted ?? 0
    const cpuBefore = cpuMicros(server.child.pid)
    const result = await run(server.url, load, options.duration, options.connections)
    const cpuAfter = cpuMicros(server.child.pid)
    if (server.exited) throw new Error(`the server exited during the run (${JSON.stringify(server.exited)})`)
    const total = result.requests.total
    return {
      reqPerSec: result.requests.mean,
      total,
      cpuPerRequest: cpuBefore !== undefined && cpuAfter !== undefined && total > 0 ? (cpuAfter - cpuBefore) / total : undefined,
      mintedDuring: (pool?.minted ?? 0) - mintedBefore,
      bad: result.non2xx + result.mismatches + result.errors + result.timeouts + load.extraBad.count,
    }
  } finally {
    await server.stop()
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const fmt = (n: number) => Math.round(n).toLocaleString("en-US")

/**
 * Runs the selected OP rows, prints their table and the targets (MET / NOT MET on the
 * median of the rounds), and answers the failures (a server that did not start, a tripped
 * correctness guard). Missing a target is reported, not failed.
 */
export async function runOpRows(options: OpOptions): Promise<string[]> {
  const rows = selectedRows(options.only)
  const failures: string[] = []
  const runs = new Map<string, Measurement[]>()
  const failed = new Set<string>()
  const key = (row: OpRow, target: OpTarget) => `${row} ${target}`
  console.log(`\nOpenID Provider rows (issue 34): Portcullis oidcProvider vs oidc-provider 9, equivalent configuration (bench/op-server.ts)`)
  for (let round = 1; round <= options.rounds; round++) {
    if (options.rounds > 1) console.log(`OP round ${round}/${options.rounds}`)
    for (const row of rows) {
      for (const target of OP_TARGETS) {
        const k = key(row, target)
        if (failed.has(k)) continue
        process.stdout.write(`  ${TITLES[row].padEnd(40)} ${LIBRARIES[target].padEnd(16)} ... `)
        const last = Math.max(2_000, ...(runs.get(k) ?? []).map((m) => m.reqPerSec))
        try {
          const m = await measure(row, target, options, last)
          runs.set(k, [...(runs.get(k) ?? []), m])
          console.log(`${fmt(m.reqPerSec)} req/s, ${m.total} requests${m.cpuPerRequest === undefined ? "" : `, ${Math.round(m.cpuPerRequest)} µs CPU/req`}${m.bad ? `, ${m.bad} BAD` : ", all checked"}${m.mintedDuring ? ` (${m.mintedDuring} codes minted during the measurement)` : ""}`)
          if (m.bad) {
            failed.add(k)
            failures.push(`${LIBRARIES[target]} ${TITLES[row]}: correctness guard tripped (${m.bad} bad answers)`)
          }
        } catch (error) {
          console.log("FAILED")
          failed.add(k)
          failures.push(`${LIBRARIES[target]} ${TITLES[row]}: ${(error as Error).message}`)
        }
      }
    }
  }

  const lines: string[] = ["", "| OP row | library | req/s median (per round) | server CPU µs/req | ratio P/O (req/s) | CPU ratio O/P |", "|---|---|---:|---:|---:|---:|"]
  const targets: string[] = []
  for (const row of rows) {
    const p = failed.has(key(row, "op-portcullis")) ? undefined : runs.get(key(row, "op-portcullis"))
    const o = failed.has(key(row, "op-oidc-provider")) ? undefined : runs.get(key(row, "op-oidc-provider"))
    const cpu = (ms: Measurement[] | undefined) => ms?.every((m) => m.cpuPerRequest !== undefined) ? median(ms.map((m) => m.cpuPerRequest!)) : undefined
    const ratio = p && o ? median(p.map((m) => m.reqPerSec)) / median(o.map((m) => m.reqPerSec)) : undefined
    const cpuP = cpu(p)
    const cpuO = cpu(o)
    const cpuRatio = cpuP && cpuO ? cpuO / cpuP : undefined
    for (const [target, ms] of [["op-portcullis", p], ["op-oidc-provider", o]] as const) {
      if (!ms) continue
      const first = target === "op-portcullis"
      lines.push(`| ${TITLES[row]} | ${LIBRARIES[target]} | ${fmt(median(ms.map((m) => m.reqPerSec)))} (${ms.map((m) => fmt(m.reqPerSec)).join(" / ")}) | ${cpu(ms) === undefined ? "" : Math.round(cpu(ms)!)} | ${first && ratio ? `${ratio.toFixed(2)}×` : ""} | ${first && cpuRatio ? `${cpuRatio.toFixed(2)}×` : ""} |`)
    }
    if (p && o && ratio) {
      const pr = median(p.map((m) => m.reqPerSec))
      const or = median(o.map((m) => m.reqPerSec))
      targets.push(`${ratio >= WANTED ? "MET" : "NOT MET"}  ${TARGET_LABELS[row]} ≥ ${WANTED}× oidc-provider: ${ratio.toFixed(2)}× req/s (${fmt(pr)} vs ${fmt(or)}, median of ${Math.min(p.length, o.length)} round(s))` +
        (cpuRatio ? `, ${cpuRatio.toFixed(2)}× CPU (${Math.round(cpuO!)} vs ${Math.round(cpuP!)} µs/req)` : ""))
    }
  }
  console.log([...lines, "", ...targets].join("\n"))
  return failures
}

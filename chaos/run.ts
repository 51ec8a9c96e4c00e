// `npm run chaos`: breaks the store under a running app and checks what users would see.
//
// For PostgreSQL (SQL adapter) and Redis (Redis adapter) in turn: starts a throwaway
// server and the chaos app (chaos/app.ts) as a child process, drives mixed load from 20
// loops, and injects each fault mid-load: a restart, a kill -9 (down 3 s), a pause
// (SIGSTOP 10 s, then SIGCONT). Prints per scenario what happened and exits non-zero when
// a must-be-zero figure is not zero or recovery took longer than 2 s.
// With CI=true a missing server binary fails the run; locally that store is skipped.
import { freePort, missingBinaries, startThrowawayPostgres, startThrowawayRedis, type ThrowawayServer } from "@portcullis/adapter-test/throwaway"
import { CHAOS_PASSWORD } from "./app-constants.ts"
import { startApp, type AppProcess } from "./child.ts"
import { sessionUser, signIn } from "./http.ts"
import { startLoad } from "./load.ts"
import { connectionsOverLimit, seedExpiredSessions } from "./store.ts"
import { summarise, formatTable, type ScenarioResult, failures } from "./report.ts"

type Store = "postgres" | "redis"
type Fault = "restart" | "kill -9" | "pause 10 s"

const CI = /^(true|1)$/i.test(process.env.CI ?? "")
const RECOVERY_LIMIT_MS = 2_000
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const stores: { store: Store; binaries: "postgres" | "redis"; start: () => Promise<ThrowawayServer>; hint: string }[] = [
  { store: "postgres", binaries: "postgres", start: startThrowawayPostgres, hint: "install PostgreSQL (initdb, postgres)" },
  { store: "redis", binaries: "redis", start: startThrowawayRedis, hint: "install redis-server" },
]

/** Breaks the server in one way; resolves when it is back (answering queries again). */
async function inject(server: ThrowawayServer, fault: Fault): Promise<void> {
  if (fault === "restart") return server.restart()
  if (fault === "kill -9") {
    await server.kill()
    await sleep(3_000)
    return server.start()
  }
  server.pause()
  await sleep(10_000)
  server.resume()
}

/**
 * Milliseconds from `since` until a signed-in session reads as signed in again. Probes
 * start every 50 ms without waiting for each other, so one request stuck from the outage
 * cannot delay the measurement.
 */
async function timeToRecover(base: string, token: string, since: number, limitMs = 15_000): Promise<number> {
  const probes: Promise<number>[] = []
  let recovered = Infinity
  while (Date.now() - since < limitMs && recovered === Infinity) {
    probes.push(sessionUser(base, token, "probe").then(({ outcome, user }) => {
      if (user) recovered = Math.min(recovered, outcome.end - since)
      return recovered
    }))
    await sleep(50)
  }
  await Promise.all(probes)
  return recovered
}

/** Sign-outs the app called successful whose session still works: each one is a lie. */
async function signOutLies(base: string, tokens: readonly string[]): Promise<number> {
  let lies = 0
  for (const token of tokens) {
    // Ask up to three times: only an answer with a user counts, an error is not a lie.
    for (let attempt = 0; attempt < 3; attempt++) {
      const { outcome, user } = await sessionUser(base, token, "verify")
      if (user) {
        lies++
        break
      }
      if (outcome.status === 200) break
      await sleep(200)
    }
  }
  return lies
}

async function scenario(store: Store, fault: Fault, server: ThrowawayServer, app: AppProcess, tokens: { valid: string[]; expired: string[]; probe: string }): Promise<ScenarioResult> {
  const before = { crashes: app.crashes, unhandled: app.unhandledLines }
  const load = startLoad({ base: app.base, validTokens: tokens.valid, expiredTokens: tokens.expired })
  await sleep(2_000)
  const faultAt = Date.now()
  await inject(server, fault)
  const backAt = Date.now()
  const recoveryMs = await timeToRecover(app.base, tokens.probe, backAt)
  await sleep(3_000)
  await load.stop()
  const lies = await signOutLies(app.base, load.signedOut)
  const leaked = await connectionsOverLimit(store, server.url)
  return summarise({
    store,
    fault,
    outcomes: load.outcomes,
    faultAt,
    backAt,
    recoveryMs,
    crashes: app.crashes - before.crashes,
    unhandled: app.unhandledLines - before.unhandled,
    signOuts: load.signedOut.length,
    lies,
    leaked,
  })
}

async function runStore(entry: (typeof stores)[number]): Promise<ScenarioResult[]> {
  const server = await entry.start()
  const app = await startApp(entry.store, server.url, await freePort())
  try {
    const valid: string[] = []
    for (let i = 0; i < 20; i++) {
      const token = await signIn(app.base, `valid-${i}`, CHAOS_PASSWORD)
      if (!token) throw new Error(`the chaos app refused sign-in ${i}: ${app.stderrTail.join("\n")}`)
      valid.push(token)
    }
    const probe = await signIn(app.base, "probe", CHAOS_PASSWORD)
    if (!probe) throw new Error("the chaos app refused the probe sign-in")
    const expired = await seedExpiredSessions(entry.store, server.url, "user-valid-0", 20)
    const results: ScenarioResult[] = []
    for (const fault of ["restart", "kill -9", "pause 10 s"] as const) {
      const result = await scenario(entry.store, fault, server, app, { valid, expired, probe })
      console.log(formatTable([result], { header: results.length === 0 && entry === stores[0] }))
      if (failures(result, RECOVERY_LIMIT_MS).length) console.log(app.stderrTail.slice(-10).map((l) => `    app: ${l}`).join("\n"))
      results.push(result)
    }
    return results
  } finally {
    await app.stop()
    await server.close()
  }
}

const results: ScenarioResult[] = []
let missing = false
console.log(`chaos: store faults under load; recovery must be <= ${RECOVERY_LIMIT_MS} ms\n`)
for (const entry of stores) {
  const absent = missingBinaries(entry.binaries)
  if (absent.length) {
    console.log(`${CI ? "FAIL" : "skip"} ${entry.store}: ${absent.join(", ")} not found (${entry.hint})`)
    missing ||= CI
    continue
  }
  results.push(...(await runStore(entry)))
}

const problems = results.flatMap((r) => failures(r, RECOVERY_LIMIT_MS).map((f) => `${r.store} / ${r.fault}: ${f}`))
console.log(`\n${formatTable(results, { header: true })}\n`)
if (problems.length || missing) {
  for (const p of problems) console.log(`FAIL ${p}`)
  process.exit(1)
}
console.log(results.length ? "chaos: all scenarios passed" : "chaos: nothing ran (no server binaries)")

/**
 * The burst row's password sign-ins, sent from a process of their own:
 * `node bench/burst-signins.ts` with the sign-in request as JSON in BURST_SIGNIN
 * (`{ url, headers, body, rate }`). Driven by lines on stdin: `start` posts one sign-in
 * every `1000 / rate` ms until `stop`, which waits for the sign-ins in flight and writes
 * `{ ok, failed }` (this phase's counts) as one JSON line to stdout. Each answer is checked:
 * a 200 whose body names no error and which sets a session cookie. It exits when stdin
 * closes. One process serves every phase of a run, so its start-up lands in no phase.
 *
 * Why a process: the session checks' latencies are read by autocannon on the runner's
 * event loop. Sign-ins sent from that same loop (each a `fetch`: a request, its parsing,
 * a body read) hold the loop while autocannon's answers wait in the socket, so the
 * runner's own work showed up as server latency in the burst phase. From here they cost
 * the server what real sign-ins cost it, and the measuring loop nothing.
 */
import type { SignInSpec } from "./harness.ts"
import { SESSION_COOKIE, signedIn } from "./sessions.ts"

const spec = JSON.parse(process.env.BURST_SIGNIN ?? "null") as SignInSpec | null
if (!spec || typeof spec.url !== "string" || !(spec.rate > 0)) {
  console.error("burst-signins: BURST_SIGNIN must be { url, headers, body, rate }")
  process.exit(2)
}

let counts = { ok: 0, failed: 0 }
const inFlight = new Set<Promise<void>>()
let timer: ReturnType<typeof setInterval> | undefined

async function once(s: SignInSpec): Promise<void> {
  const phase = counts
  try {
    const response = await fetch(s.url, { method: "POST", headers: s.headers, body: s.body })
    const body = await response.text()
    const setsSession = response.headers.getSetCookie().some((c) => c.startsWith(`${SESSION_COOKIE}=`) && !c.startsWith(`${SESSION_COOKIE}=;`))
    if (response.status === 200 && signedIn(body) && setsSession) phase.ok++
    else phase.failed++
  } catch {
    phase.failed++
  }
}

function command(line: string): void {
  if (line === "start" && !timer) {
    timer = setInterval(() => {
      const p = once(spec!).finally(() => inFlight.delete(p))
      inFlight.add(p)
    }, 1000 / spec!.rate)
  } else if (line === "stop" && timer) {
    clearInterval(timer)
    timer = undefined
    const phase = counts
    counts = { ok: 0, failed: 0 }
    void Promise.all(inFlight).then(() => process.stdout.write(`${JSON.stringify(phase)}\n`))
  }
}

let pending = ""
process.stdin.setEncoding("utf8")
process.stdin.on("data", (chunk: string) => {
  pending += chunk
  let newline
  while ((newline = pending.indexOf("\n")) !== -1) {
    command(pending.slice(0, newline).trim())
    pending = pending.slice(newline + 1)
  }
})
process.stdin.on("end", () => {
  if (timer) clearInterval(timer)
})
// Started by the runner: tell it the sign-ins can start.
process.stdout.write("ready\n")

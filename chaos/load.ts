// Bounded mixed load against one app: session checks with valid, expired and garbage
// cookies, and credential sign-ins each followed by a sign-out, from `workers` loops.
import { randomBytes } from "node:crypto"
import { CHAOS_PASSWORD } from "./app-constants.ts"
import { sessionUser, signIn, signOut, type Outcome } from "./http.ts"

export interface LoadPlan {
  base: string
  validTokens: readonly string[]
  expiredTokens: readonly string[]
  workers?: number
  /** Pause of each loop between requests, to keep the load bounded on a shared machine. */
  pauseMs?: number
  /** Requests at most (a safety bound; the scenario's schedule normally ends the load first). */
  maxRequests?: number
}

export interface Load {
  readonly outcomes: Outcome[]
  /** Session tokens whose sign-out the app answered as successful. */
  readonly signedOut: string[]
  stop(): Promise<void>
}

const pick = <T>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)]!

export function startLoad(plan: LoadPlan): Load {
  const { base, workers = 20, pauseMs = 25, maxRequests = 40_000 } = plan
  const outcomes: Outcome[] = []
  const signedOut: string[] = []
  let stopped = false

  async function step(worker: number): Promise<void> {
    const r = Math.random()
    if (r < 0.45) outcomes.push((await sessionUser(base, pick(plan.validTokens), "session:valid")).outcome)
    else if (r < 0.6) outcomes.push((await sessionUser(base, pick(plan.expiredTokens), "session:expired")).outcome)
    else if (r < 0.75) outcomes.push((await sessionUser(base, randomBytes(32).toString("hex"), "session:garbage")).outcome)
    else {
      const token = await signIn(base, `load-${worker}`, CHAOS_PASSWORD, outcomes)
      if (!token) return
      if ((await signOut(base, token, outcomes)).claimedSuccess) signedOut.push(token)
    }
  }

  const loop = async (worker: number) => {
    while (!stopped && outcomes.length < maxRequests) {
      await step(worker)
      await new Promise((resolve) => setTimeout(resolve, pauseMs))
    }
  }
  const running = Promise.all(Array.from({ length: workers }, (_, i) => loop(i)))
  return {
    outcomes,
    signedOut,
    async stop() {
      stopped = true
      await running
    },
  }
}

/**
 * The step-up marks: "this session proved a first factor at time T", kept server-side in
 * `stepUp.store` under a hash of the user and the session id, as a counter whose window is
 * `stepUp.maxAge` — the window ending is the mark expiring, in whichever store the
 * instances share. A store that fails or is slow refuses the gated action (never allows it).
 * @module
 */
import { ServiceUnavailable } from "../../errors.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { sha256Hex } from "../crypto.js"
import type { StepUpSession } from "./session.js"

/** When a session's mark ends, or `null` when it has none (or it expired). */
export type MarkState = { until: Date } | null

async function keyOf(session: StepUpSession & { id: string }): Promise<string> {
  // Hashed: the store never holds a session id (a listed id, or the key of a cookie's claim).
  return `stepup:${(await sha256Hex(`portcullis-step-up\u0000${session.userId}\u0000${session.id}`)).slice(0, 40)}`
}

/** Marks `session` fresh for `stepUp.maxAge` from now (a later proof starts the window again). */
export async function markFresh(config: ResolvedConfig, session: StepUpSession): Promise<void> {
  if (!session.id) return
  const key = await keyOf(session as StepUpSession & { id: string })
  const { store, maxAge } = config.stepUp
  await bounded(config, async () => {
    // The store's windows are fixed at creation: the old mark goes first.
    await store.reset(key)
    await store.hit(key, maxAge)
  })
}

/** The mark of `session`, read from the store. @throws ServiceUnavailable when the store fails. */
export async function readMark(config: ResolvedConfig, session: StepUpSession): Promise<MarkState> {
  if (!session.id) return null
  const key = await keyOf(session as StepUpSession & { id: string })
  const counter = await bounded(config, () => config.stepUp.store.peek(key))
  return counter && counter.count > 0 && counter.resetMs > 0 ? { until: new Date(Date.now() + counter.resetMs) } : null
}

/** Forgets the mark of `session` (sign-out). */
export async function clearMark(config: ResolvedConfig, session: StepUpSession): Promise<void> {
  if (!session.id) return
  const key = await keyOf(session as StepUpSession & { id: string })
  await bounded(config, () => config.stepUp.store.reset(key))
}

async function bounded<T>(config: ResolvedConfig, call: () => Promise<T>): Promise<T> {
  const ms = config.stepUp.timeout
  let timer: ReturnType<typeof setTimeout> | undefined
  try {
    const work = call()
    const value = ms > 0 ? await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`The step-up store did not answer within ${ms} ms`)), ms)))]) : await work
    const tracker = config.storeHealth.of("step-up store")
    if (tracker.failing) tracker.recovered()
    return value
  } catch (error) {
    const failure = new ServiceUnavailable("The step-up store failed; sensitive actions are refused until it answers", error as Error)
    config.storeHealth.raised("step-up store", failure)
    throw failure
  } finally {
    if (timer) clearTimeout(timer)
  }
}

/**
 * Concurrent calls against a store while a test breaks its server, recording when each
 * call started and ended and how it went, so a test can ask: did every call end in
 * bounded time, and how soon after the server came back did calls succeed again?
 * @module
 */

/** One call: when it started and ended (ms since the epoch) and its error, if any. */
export interface CallRecord {
  start: number
  end: number
  error?: Error
}

/** A running load; `stop()` waits for the calls in flight and returns every record. */
export interface FaultLoad {
  readonly records: readonly CallRecord[]
  stop(): Promise<CallRecord[]>
}

/**
 * Runs `call` in `workers` loops until stopped (each loop waits `pauseMs` between calls,
 * so a failing store is not hammered). At most `maxCalls` calls in all.
 *
 * @example
 * ```ts
 * const load = startFaultLoad(() => db.selectFrom("users").select("id").limit(1).execute(), { workers: 20 })
 * await server.restart()
 * const records = await load.stop()
 * ```
 */
export function startFaultLoad(call: () => Promise<unknown>, options: { workers?: number; pauseMs?: number; maxCalls?: number } = {}): FaultLoad {
  const { workers = 20, pauseMs = 10, maxCalls = 100_000 } = options
  const records: CallRecord[] = []
  let stopped = false
  const loop = async () => {
    while (!stopped && records.length < maxCalls) {
      const record: CallRecord = { start: Date.now(), end: 0 }
      records.push(record)
      try {
        await call()
      } catch (error) {
        record.error = error instanceof Error ? error : new Error(String(error))
      }
      record.end = Date.now()
      await new Promise((resolve) => setTimeout(resolve, pauseMs))
    }
  }
  const running = Promise.all(Array.from({ length: workers }, loop))
  return {
    records,
    async stop() {
      stopped = true
      await running
      return records
    },
  }
}

/**
 * Milliseconds from `since` until the first call that started after it succeeded, or
 * `Infinity` when none did.
 */
export function recoveryMs(records: readonly CallRecord[], since: number): number {
  const first = records.filter((r) => r.start >= since && r.end && !r.error).sort((a, b) => a.end - b.end)[0]
  return first ? first.end - since : Infinity
}

/** Polls `call` every 20 ms until it succeeds; returns the milliseconds it took (throws after `limitMs`). */
export async function timeUntilSuccess(call: () => Promise<unknown>, limitMs = 10_000): Promise<number> {
  const start = Date.now()
  let last: unknown
  while (Date.now() - start < limitMs) {
    try {
      await call()
      return Date.now() - start
    } catch (error) {
      last = error
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error(`no success within ${limitMs} ms: ${String(last)}`)
}

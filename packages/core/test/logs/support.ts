/**
 * Shared by the log-level tests (issue 29): the lines the default console logger prints,
 * counted as an operator's log collector counts them, and a flood of requests sent with a
 * bounded number in flight.
 */
import { inspect } from "node:util"
import { vi } from "vitest"

export interface PrintedLine {
  level: "error" | "warn" | "log"
  text: string
}

/**
 * Captures what Portcullis's default logger writes to the console (`console.error`,
 * `console.warn`, `console.log`), each call rendered as the console renders it and split
 * into the lines a log file would hold.
 */
export function consoleLines() {
  const lines: PrintedLine[] = []
  const calls: PrintedLine[] = []
  const capture = (level: PrintedLine["level"]) => (...args: unknown[]) => {
    const text = args.map((a) => (typeof a === "string" ? a : inspect(a))).join(" ")
    calls.push({ level, text })
    for (const line of text.split("\n")) lines.push({ level, text: line })
  }
  const spies = [vi.spyOn(console, "error").mockImplementation(capture("error")), vi.spyOn(console, "warn").mockImplementation(capture("warn")), vi.spyOn(console, "log").mockImplementation(capture("log"))]
  return {
    /** Every printed line. */
    lines,
    /** Every console call (one logged event each). */
    calls,
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  }
}

/** A line of a stack trace. */
export const STACK_LINE = /^\s+at /

/** Sends `count` requests made by `request(i)`, at most `inFlight` at a time; checks each answer with `check`. */
export async function flood(count: number, inFlight: number, request: (i: number) => Promise<Response>, check: (response: Response, i: number) => void | Promise<void>): Promise<void> {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      const response = await request(i)
      await check(response, i)
      await response.body?.cancel().catch(() => {})
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
}

/**
 * A logger that records each call as `{ level, code, details }` (an error's message as its
 * code): for the unit tests of the pieces that decide what is logged (the limiter, the
 * outage tracker), which count calls rather than printed lines.
 */
export function recorder() {
  const lines: { level: string; code: string; details?: Record<string, unknown> }[] = []
  const logger = {
    error: (e: Error) => void lines.push({ level: "error", code: e.message }),
    warn: (code: string, details?: Record<string, unknown>) => void lines.push({ level: "warn", code, details }),
    debug: () => {},
  }
  return { lines, logger }
}

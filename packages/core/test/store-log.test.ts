import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { describeError, failureReporter, type StoreLogger } from "@portcullis/core/store-log"

describe("failureReporter", () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  function reporter() {
    const lines: string[] = []
    const logger: StoreLogger = { error: (m) => void lines.push(`error ${m}`), warn: (m) => void lines.push(`warn ${m}`) }
    return { lines, report: failureReporter(logger, "PostgreSQL", 30_000) }
  }

  it("reports the first failure of a run, counts the rest, and closes the run on recovery", () => {
    const { lines, report } = reporter()
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })
    for (let i = 0; i < 100; i++) report.failed(refused)
    report.recovered()
    report.recovered() // nothing to say the second time
    expect(lines).toEqual([
      "error PostgreSQL: connection error: connect ECONNREFUSED 127.0.0.1:5432",
      "warn PostgreSQL: connected again after 99 more errors",
    ])
  })

  it("reminds at most once per quiet period during a long outage", () => {
    const { lines, report } = reporter()
    for (let second = 0; second < 65; second++) {
      report.failed(new Error("Connection terminated unexpectedly"))
      vi.advanceTimersByTime(1_000)
    }
    expect(lines).toEqual([
      "error PostgreSQL: connection error: Connection terminated unexpectedly",
      "error PostgreSQL: connection error: Connection terminated unexpectedly (29 more since the last report)",
      "error PostgreSQL: connection error: Connection terminated unexpectedly (29 more since the last report)",
    ])
  })

  it("describes errors on one line, with the code when the message lacks it", () => {
    expect(describeError(Object.assign(new Error("timeout exceeded"), { code: "ETIMEDOUT" }))).toBe("timeout exceeded (ETIMEDOUT)")
    expect(describeError(new AggregateError([new Error("a"), new Error("b")], ""))).toBe("a; b")
    expect(describeError("plain")).toBe("plain")
  })
})

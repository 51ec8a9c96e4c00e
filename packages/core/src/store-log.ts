/**
 * How the store clients report connection trouble. A database outage produces one error
 * per failed connection attempt and per broken connection; logging each would bury the
 * log, so a run of failures is reported once, then counted, then closed by a recovery line.
 * Shared by the store clients of `@portcullis/sql-adapter` and `@portcullis/redis-adapter`.
 * @module
 */

/** Where store clients send connection-level errors and advice. */
export interface StoreLogger {
  /** A connection-level failure (the first of a run, and one reminder per quiet period). */
  error(message: string, error?: unknown): void
  /** Advice about a client's configuration, and the recovery after a run of failures. */
  warn(message: string): void
}

/** One line per message on stderr; custom loggers also receive the error object. */
export const consoleStoreLogger: StoreLogger = {
  error: (message) => console.error(message),
  warn: (message) => console.warn(message),
}

/** What {@link failureReporter} returns: feed it failures and successes. */
export interface FailureReporter {
  failed(error: unknown): void
  recovered(): void
}

/**
 * Turns a stream of connection errors into a few log lines: the first failure of a run,
 * then at most one line per `quietMs` with the number of failures not shown, and one
 * line when the connection works again.
 *
 * @example
 * ```ts
 * const report = failureReporter(consoleStoreLogger, "PostgreSQL")
 * pool.on("error", report.failed)
 * pool.on("connect", report.recovered)
 * ```
 */
export function failureReporter(logger: StoreLogger, label: string, quietMs = 30_000): FailureReporter {
  let failing = false
  let unreported = 0
  let lastLine = 0
  return {
    failed(error) {
      const now = Date.now()
      if (failing && now - lastLine < quietMs) {
        unreported++
        return
      }
      const more = unreported ? ` (${unreported} more since the last report)` : ""
      logger.error(`${label}: connection error: ${describeError(error)}${more}`, error)
      failing = true
      lastLine = now
      unreported = 0
    },
    recovered() {
      if (!failing) return
      const more = unreported ? ` after ${unreported} more errors` : ""
      logger.warn(`${label}: connected again${more}`)
      failing = false
      unreported = 0
    },
  }
}

/** `message (code)`, without the stack: the log line stays one line. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  const message = error.message || (error as AggregateError).errors?.map((e: unknown) => describeError(e)).join("; ") || error.name
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message
}

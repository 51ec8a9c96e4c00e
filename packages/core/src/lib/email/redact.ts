/**
 * Scrubbing token material out of errors before they reach a logger.
 * @module
 */

/** Error fields worth keeping for diagnosis (nodemailer's SMTP details, Node's errno). */
const KEPT_FIELDS = ["code", "errno", "syscall", "command", "responseCode", "status"] as const

/**
 * A copy of `error` safe to log: name, message, stack and a few diagnostic fields, with
 * every occurrence of each secret (raw and URL-encoded) replaced by `[redacted]`.
 *
 * A sender's error can carry the sign-in link: an API that echoes the request, a user's
 * `sendVerificationRequest` that puts the URL in its message. The original object is
 * dropped rather than cleaned, since any of its properties could hold the link.
 */
export function redactError(error: unknown, secrets: readonly string[]): Error {
  const needles = [...new Set(secrets.flatMap((s) => [s, encodeURIComponent(s)]))].filter((s) => s.length > 0)
  const scrub = (text: string) => needles.reduce((out, needle) => out.split(needle).join("[redacted]"), text)
  const source = error instanceof Error ? error : new Error(String(error))
  const copy = new Error(scrub(source.message))
  copy.name = scrub(source.name)
  copy.stack = source.stack === undefined ? undefined : scrub(source.stack)
  for (const field of KEPT_FIELDS) {
    const value = (source as unknown as Record<string, unknown>)[field]
    if (typeof value === "string") (copy as unknown as Record<string, unknown>)[field] = scrub(value)
    else if (typeof value === "number") (copy as unknown as Record<string, unknown>)[field] = value
  }
  return copy
}

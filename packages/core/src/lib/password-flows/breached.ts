/**
 * The breached-password check (NIST SP 800-63B-4: new passwords are compared against a list
 * of values known to be compromised; OWASP ASVS V6): is a new password in a corpus of
 * passwords from breaches?
 *
 * Asked with the k-anonymity range protocol of Have I Been Pwned's Pwned Passwords API: only
 * the first 5 hex characters of the password's SHA-1 leave the process (`GET
 * <url>/range/<PREFIX>`); the server answers every suffix it knows under that prefix, one
 * `SUFFIX:COUNT` line each — with `Add-Padding: true` also fake rows of count 0, so the size
 * of the answer says nothing about the prefix — and the suffix is compared here. The server
 * never sees the password or its full hash.
 * @module
 */
import type { BreachedPasswordPolicy } from "../password/provider-types.js"
import { readCapped } from "../http/body.js"

/** Have I Been Pwned's Pwned Passwords API; requests go to `<url>/range/<PREFIX>`. */
export const DEFAULT_RANGE_URL = "https://api.pwnedpasswords.com"
/** Milliseconds the range request (and its body) may take before the check counts as failed. */
export const DEFAULT_TIMEOUT_MS = 1500
/**
 * An answer larger than this is not a range answer (Have I Been Pwned's padded ones are about
 * 30–40 KB): reading stops there, so a wrong URL or a hostile server cannot fill memory.
 */
const MAX_ANSWER_BYTES = 1024 * 1024

/** The check's options with every default applied. */
export interface BreachCheck {
  url: string
  minCount: number
  timeout: number
  onError: "open" | "closed"
  fetch: typeof fetch | undefined
}

/** Why the range API gave no usable answer (the `kind` of the warning logged). */
export type BreachCheckFailure = "timeout" | "unreachable" | "status" | "too-large" | "malformed"

/**
 * The range API's verdict: how often it has seen the password in breaches (0: never), or
 * why it gave no usable answer. Either is an expected outcome, hence a value.
 */
export type BreachAnswer = { count: number } | { failure: BreachCheckFailure }

/** The provider's breached-password check, resolved; `undefined` when it is off (the default). */
export function breachCheckOf(policy: BreachedPasswordPolicy | undefined): BreachCheck | undefined {
  if (policy === undefined || policy.enabled === false) return undefined
  return {
    url: (policy.url ?? DEFAULT_RANGE_URL).replace(/\/+$/, ""),
    minCount: policy.minCount ?? 1,
    timeout: policy.timeout ?? DEFAULT_TIMEOUT_MS,
    onError: policy.onError ?? "open",
    fetch: policy.fetch,
  }
}

/** The range API's origin, for logs: never a path or credentials a mirror's URL may carry. */
export function originOf(check: BreachCheck): string {
  return URL.canParse(check.url) ? new URL(check.url).origin : "(invalid url)"
}

/** What is wrong with the options of `policy.breached`, or `undefined`. */
export function breachOptionsProblem(policy: unknown): string | undefined {
  if (policy === undefined) return undefined
  if (typeof policy !== "object" || policy === null) return "has policy.breached that is not an object; use { } or { url, minCount, timeout, onError, fetch }"
  const { enabled, url, minCount, timeout, onError, fetch } = policy as Record<string, unknown>
  if (enabled !== undefined && typeof enabled !== "boolean") return `has policy.breached.enabled ${JSON.stringify(enabled)}; use true or false`
  if (url !== undefined && !(typeof url === "string" && URL.canParse(url) && ["http:", "https:"].includes(new URL(url).protocol))) return `has policy.breached.url ${JSON.stringify(url)}; use an http(s) URL (the range API's base, without /range)`
  if (minCount !== undefined && (!Number.isSafeInteger(minCount) || (minCount as number) < 1)) return `has policy.breached.minCount ${JSON.stringify(minCount)}; use a whole number of at least 1`
  // Number.isFinite is false for anything that is not a number: no typeof needed, as for minCount.
  if (timeout !== undefined && (!Number.isFinite(timeout) || (timeout as number) <= 0)) return `has policy.breached.timeout ${JSON.stringify(timeout)}; use a positive number of milliseconds`
  if (onError !== undefined && onError !== "open" && onError !== "closed") return `has policy.breached.onError ${JSON.stringify(onError)}; use "open" or "closed"`
  if (fetch !== undefined && typeof fetch !== "function") return "has policy.breached.fetch that is not a function"
  return undefined
}

/** How often the range API has seen `password` in breaches, or why it could not say within the timeout. */
export async function breachLookup(check: BreachCheck, password: string): Promise<BreachAnswer> {
  const hash = await sha1Hex(password)
  const suffix = hash.slice(5)
  const answer = await rangeOf(check, hash.slice(0, 5))
  if (typeof answer !== "string") return answer
  for (const line of answer.split("\n")) {
    const colon = line.indexOf(":")
    if (colon === -1) {
      if (line.trim() === "") continue
      return { failure: "malformed" }
    }
    if (line.slice(0, colon).trim().toUpperCase() !== suffix) continue
    // Number() ignores the whitespace around the count (the CR of a CRLF line too).
    const count = Number(line.slice(colon + 1))
    if (!Number.isSafeInteger(count) || count < 0) return { failure: "malformed" }
    // A padding row (count 0) is not a breach, even when it happens to carry the suffix.
    return { count }
  }
  return { count: 0 }
}

/** The range API's answer for `prefix` as text, read under the timeout and the size bound; or the failure. */
async function rangeOf(check: BreachCheck, prefix: string): Promise<string | { failure: BreachCheckFailure }> {
  const signal = AbortSignal.timeout(check.timeout)
  const fetcher = check.fetch ?? globalThis.fetch
  const failed = (kind: BreachCheckFailure) => ({ failure: signal.aborted ? "timeout" : kind }) as const
  let response: Response
  try {
    // No redirects: the prefix goes to the configured server and nowhere else.
    response = await fetcher(`${check.url}/range/${prefix}`, { headers: { "Add-Padding": "true" }, redirect: "error", signal })
  } catch {
    return failed("unreachable")
  }
  if (response.status !== 200) {
    await response.body?.cancel().catch(() => {})
    return failed("status")
  }
  try {
    return (await boundedText(response)) ?? failed("too-large")
  } catch {
    // The body broke off, or the timeout fired while it was read.
    return failed("unreachable")
  }
}

/** Thrown by the capped read below: the answer grew past {@link MAX_ANSWER_BYTES}. */
class AnswerTooLarge extends Error {}

/** The body as text, or `undefined` when it grows past {@link MAX_ANSWER_BYTES} (then cancelled). */
async function boundedText(response: Response): Promise<string | undefined> {
  if (!response.body) return ""
  try {
    return new TextDecoder().decode(await readCapped(response.body, MAX_ANSWER_BYTES, () => new AnswerTooLarge()))
  } catch (error) {
    if (error instanceof AnswerTooLarge) return undefined
    throw error
  }
}

/** SHA-1 of the password's UTF-8 bytes, upper-case hex (the range API's alphabet). */
export async function sha1Hex(password: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(password)))
  let hex = ""
  for (const byte of digest) hex += byte.toString(16).padStart(2, "0")
  return hex.toUpperCase()
}

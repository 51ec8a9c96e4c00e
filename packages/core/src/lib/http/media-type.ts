/**
 * The essence of a `Content-Type` (RFC 9110 §8.3.1, WHATWG MIME Sniffing "essence"): the
 * `type/subtype` before any parameter, trimmed and lower-cased. Body parsers must compare
 * this exactly: a substring test lets `text/plain;x=application/json` — a "simple" type a
 * cross-site form or `fetch` may send without a preflight — pass as JSON.
 */
export function mediaTypeEssence(header: string | null): string {
  if (!header) return ""
  const semicolon = header.indexOf(";")
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase()
}

import type { Io } from "./io.js"

/**
 * A database URL with its password masked, for any shape a user may type: a password holding
 * "/", "@" or ":" (not percent-encoded), no scheme (`app:pw@db/app`), or a password in the
 * query (`?password=…`, `?sslpassword=…`).
 *
 * @example
 * ```ts
 * maskDatabaseUrl("postgres://app:p/w@db/app") // "postgres://app:***@db/app"
 * ```
 */
export function maskDatabaseUrl(url: string): string {
  const [, scheme = "", rest = ""] = /^([a-z][a-z0-9+.-]*:\/\/)?([\s\S]*)$/i.exec(url)!
  let masked = rest
  // The user info ends at the last "@": a host never holds one, a raw password may. An "@" in
  // the query makes this mask the host too, which errs on the safe side.
  const at = rest.lastIndexOf("@")
  const colon = rest.indexOf(":")
  if (at !== -1 && colon !== -1 && colon < at) masked = `${rest.slice(0, colon)}:***${rest.slice(at)}`
  masked = masked.replace(/([?&][^=&#]*(?:pass|pwd|secret|token|key)[^=&#]*=)[^&#]*/gi, "$1***")
  return `${scheme}${masked}`
}

/**
 * `io` with every form of the given values' URLs that could show a password replaced by its
 * masked form before it is printed: the value as typed (an option parser echoes a stray
 * argument; an unsupported URL is quoted back) and `partial(value)`, the caller's own masking,
 * when it masked less. The CLI owns the terminal, so this is where the last check belongs.
 */
export function scrubbing(io: Io, values: (string | undefined)[], partial: (url: string) => string = (url) => url): Io {
  const replacements = new Map<string, string>()
  for (const token of values) {
    if (!token) continue
    // `--url=<value>`: the value alone is what gets quoted back.
    for (const value of [token, token.replace(/^--?[\w-]+=/, "")]) {
      const masked = maskDatabaseUrl(value)
      if (masked === value) continue
      replacements.set(value, masked)
      const own = partial(value)
      if (own !== masked && own !== value) replacements.set(own, masked)
    }
  }
  if (replacements.size === 0) return io
  // Longest first, so a value is never half-replaced by a shorter one inside it.
  const ordered = [...replacements].sort(([a], [b]) => b.length - a.length)
  const scrub = (line: string) => ordered.reduce((text, [from, to]) => text.split(from).join(to), line)
  return { ...io, out: (line) => io.out(scrub(line)), err: (line) => io.err(scrub(line)) }
}

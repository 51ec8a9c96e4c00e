import type { Io } from "./io.js"

/**
 * `io` with each given value replaced by `mask(value)` before it is printed: the value as
 * typed (an option parser echoes a stray argument; an unsupported URL is quoted back), and
 * the value of a `--url=<value>` form alone. The CLI owns the terminal, so this is the last
 * check, whatever the command's own messages already masked.
 */
export function scrubbing(io: Io, values: (string | undefined)[], mask: (url: string) => string): Io {
  const replacements = new Map<string, string>()
  for (const token of values) {
    if (!token) continue
    for (const value of [token, token.replace(/^--?[\w-]+=/, "")]) {
      const masked = mask(value)
      if (masked !== value) replacements.set(value, masked)
    }
  }
  if (replacements.size === 0) return io
  // Longest first, so a value is never half-replaced by a shorter one inside it.
  const ordered = [...replacements].sort(([a], [b]) => b.length - a.length)
  const scrub = (line: string) => ordered.reduce((text, [from, to]) => text.split(from).join(to), line)
  return { ...io, out: (line) => io.out(scrub(line)), err: (line) => io.err(scrub(line)) }
}

/**
 * Picking a language from `Accept-Language` (RFC 9110 §12.5.4) by RFC 4647 "lookup": the
 * ranges in order of preference, each tried as given and then with subtags dropped from the
 * end (`de-CH-1996` → `de-CH` → `de`), first match wins. The header is attacker-controlled,
 * so it is read within bounds and anything malformed is skipped, never an error.
 * @module
 */

const MAX_HEADER = 1024
const MAX_RANGES = 32
const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/
const QUALITY = /^q=(0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/i

// Simplified Chinese is not what readers of Traditional Chinese asked for: these ranges
// don't fall back to `zh` (they match only a catalog the app adds for them).
const TRADITIONAL_CHINESE = /^zh-(?:hant|tw|hk|mo)(?:-|$)/i

/** The language ranges of an `Accept-Language` value, most preferred first; `q=0` dropped. */
export function acceptedLanguages(header: string | null | undefined): string[] {
  if (!header) return []
  const ranges: { tag: string; q: number; order: number }[] = []
  const parts = header.slice(0, MAX_HEADER).split(",")
  for (let i = 0; i < parts.length && ranges.length < MAX_RANGES; i++) {
    const [tag, ...params] = parts[i]!.trim().split(";").map((s) => s.trim())
    if (!tag || !RANGE.test(tag)) continue
    let q = 1
    let valid = true
    for (const param of params) {
      if (!/^q=/i.test(param)) continue
      const m = QUALITY.exec(param)
      if (m) q = Number(m[1])
      else valid = false // a range with a malformed weight is skipped, not given weight 1
    }
    if (valid && q > 0) ranges.push({ tag, q, order: i })
  }
  // A stable sort keeps the header's order among equal qualities.
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order).map((r) => r.tag)
}

/**
 * The first of `available` (locale tags, any case) that `ranges` ask for, by lookup; `*`
 * and no match give `undefined`. The answer is spelled as in `available`.
 */
export function lookupLocale(ranges: readonly string[], available: readonly string[]): string | undefined {
  // No header (machine clients: every token and userinfo call): nothing to look up.
  if (ranges.length === 0) return undefined
  const byLower = new Map(available.map((tag) => [tag.toLowerCase(), tag]))
  for (const range of ranges) {
    if (range === "*") continue
    let candidate = range.toLowerCase()
    const traditional = TRADITIONAL_CHINESE.test(candidate)
    for (;;) {
      const found = byLower.get(candidate)
      if (found && !(traditional && candidate === "zh")) return found
      const cut = candidate.lastIndexOf("-")
      if (cut < 0) break
      candidate = candidate.slice(0, cut)
      // A single-letter subtag (an extension or private-use marker) goes with what follows it.
      if (candidate.at(-2) === "-") candidate = candidate.slice(0, -2)
    }
  }
  return undefined
}

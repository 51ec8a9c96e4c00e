/**
 * A tiny escaping template tag for the built-in pages.
 *
 * The pages show values that can come from the request (callback URLs, error codes, a
 * pre-filled email) or from configuration (provider names, logos). Escaping by default
 * means a template author has to opt *out* of safety (with {@link raw}), never opt in.
 * @module
 */

/**
 * Markup that is already safe to place in a document: produced by {@link html} or
 * {@link raw}. The class is the brand: a plain object such as `{ value: "<b>" }` coming
 * from parsed input is never mistaken for markup, because only this module constructs it.
 */
export class SafeHtml {
  readonly #markup: string

  /** @internal Use {@link html} or {@link raw}; the constructor is not part of the API. */
  constructor(markup: string) {
    this.#markup = markup
  }

  /** The markup as a string. */
  toString(): string {
    return this.#markup
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
}

/**
 * Escapes text for use in element content and in quoted attribute values.
 * All five characters are replaced so the result is safe in either quote style.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c)
}

/** Values a template may interpolate. `null`, `undefined` and `false` render nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[]

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.toString()
  if (Array.isArray(value)) return value.map(render).join("")
  // `false` is allowed so `${cond && html`...`}` reads naturally; `true` is not markup.
  if (value === null || value === undefined || typeof value === "boolean") return ""
  return escapeHtml(String(value))
}

/**
 * Template tag: the literal parts are trusted markup, every interpolated value is escaped
 * unless it is {@link SafeHtml} (or an array of values, each handled the same way).
 *
 * @example html`<p class="x">${userInput}</p>`
 */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? ""
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "")
  return new SafeHtml(out)
}

/**
 * Marks a string as markup without escaping it. Only for constants written in this
 * codebase (the stylesheet, the doctype); never pass anything derived from input.
 */
export function raw(trustedMarkup: string): SafeHtml {
  return new SafeHtml(trustedMarkup)
}

// Any base works: it only lets relative references parse so their scheme can be checked.
const RELATIVE_BASE = "http://relative.invalid/"

/**
 * Returns `url` if a browser would treat it as an http(s) URL or a relative reference,
 * otherwise `""`. Callers omit the element or attribute on `""`.
 *
 * Parsing with WHATWG `URL` (the parser browsers use) instead of a prefix check matters:
 * browsers strip tabs, newlines and leading control characters, so `java\tscript:` and
 * `\u0001javascript:` are still `javascript:` URLs, and a prefix check would miss them.
 */
export function safeUrl(url: string | null | undefined): string {
  if (typeof url !== "string" || url.trim() === "") return ""
  let parsed: URL
  try {
    parsed = new URL(url, RELATIVE_BASE)
  } catch {
    return ""
  }
  return parsed.protocol === "http:" || parsed.protocol === "https:" ? url : ""
}

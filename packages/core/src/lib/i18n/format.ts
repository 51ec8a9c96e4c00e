/**
 * Filling a catalog's `{placeholder}` sentences, escaped for HTML or as plain text, and
 * durations in the language's own words.
 * @module
 */
import { html, type HtmlValue, type SafeHtml } from "../pages/html.js"

/** Fills `{name}` placeholders as HTML: the sentence's text and string values are escaped. */
export function fill(template: string, values: Record<string, HtmlValue> = {}): SafeHtml {
  const parts = template.split(/\{(\w+)\}/)
  const out: HtmlValue[] = []
  for (let i = 0; i < parts.length; i++) out.push(i % 2 === 0 ? parts[i]! : Object.hasOwn(values, parts[i]!) ? values[parts[i]!] : `{${parts[i]}}`)
  return html`${out}`
}

/** Fills `{name}` placeholders as plain text (email text bodies and subjects). */
export function fillText(template: string, values: Record<string, string> = {}): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (Object.hasOwn(values, name) ? values[name]! : whole))
}

/**
 * "10 minutes", "24 Stunden", "3日": coarse on purpose, in `locale`'s words. Minutes round
 * up, so a link rendered a moment after it was made still reads as its configured lifetime.
 */
export function describeDuration(ms: number, locale = "en"): string {
  const minutes = Math.max(1, Math.ceil(ms / 60_000))
  const [value, unit] = minutes < 120 ? [minutes, "minute"] : minutes < 48 * 60 ? [Math.floor(minutes / 60), "hour"] : [Math.floor(minutes / 1440), "day"]
  return new Intl.NumberFormat(locale, { style: "unit", unit, unitDisplay: "long" }).format(value)
}

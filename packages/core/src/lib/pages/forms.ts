/**
 * Form building blocks shared by the pages: hidden fields, labelled inputs and the
 * unique ids that tie labels to inputs.
 * @module
 */
import { html, type SafeHtml } from "./html.js"

/** The hidden `csrfToken` and `callbackUrl` fields every form posts. */
export function hiddenFields(csrfToken: string, callbackUrl: string): SafeHtml {
  return html`<input type="hidden" name="csrfToken" value="${csrfToken}">
<input type="hidden" name="callbackUrl" value="${callbackUrl}">`
}

/**
 * The one-button form of an emailed link's confirm page: the link's `token` and `email` posted
 * back unchanged with the CSRF token. Scanners fetch links but do not press buttons, so the
 * token is used only by this POST (docs/email.md, "Link scanners"). `extra`: inputs shown
 * above the button (the sign-up confirmation's password field).
 */
export function linkConfirmForm(action: string, fields: { csrfToken: string; callbackUrl: string; token: string; email: string }, button: string, extra?: SafeHtml): SafeHtml {
  return html`<form method="post" action="${action}">
${hiddenFields(fields.csrfToken, fields.callbackUrl)}
<input type="hidden" name="token" value="${fields.token}">
<input type="hidden" name="email" value="${fields.email}">
${extra}
<button type="submit">${button}</button>
</form>`
}

/**
 * Hands out ids that are valid (no spaces) and unique within one page. Provider ids and
 * field names are free-form, and two forms may both have an `email` field, so they
 * cannot be used as ids directly.
 */
export class IdAllocator {
  readonly #used = new Set<string>()

  /** Records an id chosen elsewhere so no generated id collides with it. */
  claim(id: string): string {
    this.#used.add(id)
    return id
  }

  /** A fresh id built from `parts`. */
  next(...parts: string[]): string {
    const base = ["field", ...parts.map(slug)].join("-")
    let id = base
    for (let n = 2; this.#used.has(id); n++) id = `${base}-${n}`
    return this.claim(id)
  }
}

function slug(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "x"
}

// Types an `<input>` may have on these forms. Anything else (e.g. `submit`, `image`,
// `file`) would change what the form does, so it falls back to `text`.
const INPUT_TYPES = new Set(["text", "password", "email", "number", "tel", "url", "hidden", "search", "date", "time"])

/** One input to render. */
export interface FieldOptions {
  id: string
  name: string
  label: string
  type?: string | undefined
  value?: string | undefined
  placeholder?: string | undefined
  autocomplete?: string | undefined
  required?: boolean | undefined
}

/** A `<label for>` and its `<input>`; hidden inputs get no label and no id. */
export function field(o: FieldOptions): SafeHtml {
  const type = o.type && INPUT_TYPES.has(o.type) ? o.type : "text"
  if (type === "hidden") return html`<input type="hidden" name="${o.name}" value="${o.value ?? ""}">`
  return html`<div class="field">
<label for="${o.id}">${o.label}</label>
<input id="${o.id}" name="${o.name}" type="${type}"${attr("value", o.value)}${attr("placeholder", o.placeholder)}${attr("autocomplete", o.autocomplete)}${o.required ? html` required` : undefined}>
</div>`
}

/** ` name="value"`, or nothing when the value is absent. */
export function attr(name: string, value: string | undefined): SafeHtml | undefined {
  return value === undefined || value === "" ? undefined : html` ${name}="${value}"`
}

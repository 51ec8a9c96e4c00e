/**
 * The error page, and the HTTP status that goes with each error code.
 * @module
 */
import { html, safeUrl } from "./html.js"
import { renderDocument } from "./layout.js"
import { errorPageMessages, isKnownCode, type ErrorPageCode } from "./messages.js"
import { en } from "../i18n/catalogs/en.js"
import { fill } from "../i18n/format.js"
import { authRoute } from "./paths.js"
import type { PageBase } from "./types.js"

/** Input of {@link renderError}. */
export interface ErrorPageOptions extends PageBase {
  /** The error code from the query string. */
  error?: string
}

const STATUS: Readonly<Record<ErrorPageCode | "default", number>> = {
  // 500: the request was fine, the deployment is not.
  Configuration: 500,
  AccessDenied: 403,
  Verification: 403,
  // 503 (not 500): the deployment is fine, the store behind it is briefly unreachable.
  ServiceUnavailable: 503,
  // 200 for unknown codes: anyone can put any `?error=` in a URL, so it says nothing
  // about what actually happened.
  default: 200,
}

// Only identifier-like codes are shown. Showing arbitrary query text, even escaped,
// would let a crafted link put a convincing fake message on this site's page.
const DISPLAYABLE_CODE = /^[A-Za-z0-9_-]{1,64}$/

/** Renders the error page; `status` is the HTTP status to send it with. */
export function renderError(page: ErrorPageOptions): { status: number; html: string } {
  const code = isKnownCode(errorPageMessages, page.error) ? page.error : "default"
  const status = STATUS[code]
  const m = (page.messages ?? en).error
  const { heading, message } = m.pages[code]
  const signin = safeUrl(authRoute(page.basePath, "signin"))
  const shownCode = page.error !== undefined && DISPLAYABLE_CODE.test(page.error) ? page.error : undefined
  const body = html`<h1>${heading}</h1>
<p class="center">${message}</p>
${shownCode ? html`<p class="center muted code">${fill(m.code, { code: html`<code>${shownCode}</code>` })}</p>` : undefined}
${signin ? html`<p class="actions"><a class="button" href="${signin}">${code === "Verification" ? m.signInAgain : code === "ServiceUnavailable" ? m.tryAgain : m.signIn}</a></p>` : undefined}`
  return { status, html: renderDocument({ title: m.title, theme: page.theme, body, locale: page.locale, messages: page.messages }) }
}

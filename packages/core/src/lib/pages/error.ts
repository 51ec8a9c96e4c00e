/**
 * The error page, and the HTTP status that goes with each error code.
 * @module
 */
import { html, safeUrl } from "./html.js"
import { renderDocument } from "./layout.js"
import { errorPageMessages, isKnownCode, type ErrorPageCode } from "./messages.js"
import { authRoute } from "./paths.js"
import type { PageBase } from "./types.js"

/** Input of {@link renderError}. */
export interface ErrorPageOptions extends PageBase {
  /** The error code from the query string. */
  error?: string
}

const PAGES: Readonly<Record<ErrorPageCode | "default", { status: number; heading: string }>> = {
  // 500: the request was fine, the deployment is not.
  Configuration: { status: 500, heading: "Server error" },
  AccessDenied: { status: 403, heading: "Access denied" },
  Verification: { status: 403, heading: "Link no longer valid" },
  // 503 (not 500): the deployment is fine, the store behind it is briefly unreachable.
  ServiceUnavailable: { status: 503, heading: "Temporarily unavailable" },
  // 200 for unknown codes: anyone can put any `?error=` in a URL, so it says nothing
  // about what actually happened.
  default: { status: 200, heading: "Something went wrong" },
}

// Only identifier-like codes are shown. Showing arbitrary query text, even escaped,
// would let a crafted link put a convincing fake message on this site's page.
const DISPLAYABLE_CODE = /^[A-Za-z0-9_-]{1,64}$/

/** Renders the error page; `status` is the HTTP status to send it with. */
export function renderError(page: ErrorPageOptions): { status: number; html: string } {
  const code = isKnownCode(errorPageMessages, page.error) ? page.error : "default"
  const { status, heading } = PAGES[code]
  const signin = safeUrl(authRoute(page.basePath, "signin"))
  const shownCode = page.error !== undefined && DISPLAYABLE_CODE.test(page.error) ? page.error : undefined
  const body = html`<h1>${heading}</h1>
<p class="center">${errorPageMessages[code]}</p>
${shownCode ? html`<p class="center muted code">Error code: <code>${shownCode}</code></p>` : undefined}
${signin ? html`<p class="actions"><a class="button" href="${signin}">${code === "Verification" ? "Sign in again" : code === "ServiceUnavailable" ? "Try again" : "Sign in"}</a></p>` : undefined}`
  return { status, html: renderDocument({ title: "Error", theme: page.theme, body }) }
}

/**
 * The HTML document shared by every built-in page: head, stylesheet, optional logo and
 * the centred card the page content goes into.
 * @module
 */
import type { Theme } from "../../base-types.js"
import type { Messages } from "../i18n/catalog.js"
import { en } from "../i18n/catalogs/en.js"
import { html, raw, safeUrl, type SafeHtml } from "./html.js"
import { STYLESHEET } from "./styles.js"
import { resolveTheme } from "./theme.js"

/** Input of {@link renderDocument}. */
export interface DocumentOptions {
  /** Plain text for `<title>`: Auth.js's titles (`Sign In`, `Sign Out`, `Verify Request`, `Error`), which apps' browser tests look for. */
  title: string
  theme: Theme | undefined
  /** The card's content. */
  body: SafeHtml
  /** The page's language: `<html lang dir>` and the logo's alt text. Default English. */
  locale?: string | undefined
  messages?: Messages | undefined
}

/** Renders a complete HTML5 document around `body`. */
export function renderDocument({ title, theme, body, locale = "en", messages = en }: DocumentOptions): string {
  const resolved = resolveTheme(theme)
  const logo = safeUrl(theme?.logo)
  // Attributes and elements with nothing to show are left out rather than rendered empty.
  const page = html`<!DOCTYPE html>
<html lang="${locale}" dir="${messages.dir}" class="${resolved.className}"${resolved.style ? html` style="${resolved.style}"` : undefined}>
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="${resolved.colorScheme}">
<meta name="robots" content="noindex, nofollow">
<title>${title}</title>
<style>${raw(STYLESHEET)}</style>
</head>
<body>
${logo ? html`<header><img class="logo" src="${logo}" alt="${messages.layout.logoAlt}"></header>` : undefined}
<main class="card">
${body}
</main>
</body>
</html>
`
  return page.toString()
}

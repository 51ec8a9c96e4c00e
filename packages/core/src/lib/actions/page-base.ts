/**
 * What every built-in page of core needs from the request: theme, paths, the CSRF token and
 * the request's language with its sentences.
 * @module
 */
import type { RequestContext } from "../context.js"
import { ensureCsrfToken } from "../csrf.js"
import { messagesOf, requestLocale } from "../i18n/index.js"
import type { PageBase } from "../pages/index.js"

export async function pageBase(ctx: RequestContext): Promise<PageBase> {
  const locale = requestLocale(ctx)
  return {
    theme: ctx.config.theme,
    basePath: ctx.config.basePath,
    origin: ctx.origin,
    csrfToken: await ensureCsrfToken(ctx),
    locale,
    messages: messagesOf(ctx.config.i18n, locale),
  }
}

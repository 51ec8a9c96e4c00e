/**
 * Pages and emails in the user's language: the built-in catalogs, the configuration's
 * `i18n` option resolved once per configuration, the choice of language per request, and
 * the filling of `{placeholder}` sentences (escaped for HTML, or as plain text for mail).
 * @module
 */
import type { Messages, MessageOverrides } from "./catalog.js"
import { ar } from "./catalogs/ar.js"
import { de } from "./catalogs/de.js"
import { en } from "./catalogs/en.js"
import { es } from "./catalogs/es.js"
import { fr } from "./catalogs/fr.js"
import { ja } from "./catalogs/ja.js"
import { pt } from "./catalogs/pt.js"
import { zh } from "./catalogs/zh.js"
import { acceptedLanguages, lookupLocale } from "./negotiate.js"
import { InvalidConfig } from "../../errors.js"

export type { Messages, MessageOverrides } from "./catalog.js"
export { acceptedLanguages, lookupLocale } from "./negotiate.js"
export { describeDuration, fill, fillText } from "./format.js"

/** The catalogs that ship with Portcullis, by locale tag. */
export const builtInCatalogs: Readonly<Record<string, Messages>> = Object.freeze({ en, de, fr, es, pt, ja, zh, ar })

/**
 * The `i18n` option: which language the built-in pages and emails speak.
 *
 * @example
 * ```ts
 * const config = {
 *   providers,
 *   i18n: {
 *     defaultLocale: "de",
 *     messages: { de: { signin: { heading: "Willkommen zurück" } }, it: { signin: { heading: "Accedi" } } },
 *   },
 * }
 * ```
 */
export interface I18nOptions {
  /**
   * One language for everyone (a tag of an available catalog), or a function of the request
   * that returns one — e.g. from the app's own language cookie — or `undefined` to let
   * `Accept-Language` decide. Default: `Accept-Language` decides.
   */
  locale?: string | ((request: Request) => string | undefined)
  /** The language when nothing the browser asks for is available. Default `"en"`. */
  defaultLocale?: string
  /** Restrict the languages offered (tags). Default: every built-in catalog and every tag in `messages`. */
  locales?: string[]
  /**
   * Sentences to replace, by locale tag, at any depth of the catalog (see `Messages`). A tag
   * without a built-in catalog adds a language: its missing sentences come from
   * `defaultLocale`'s catalog.
   */
  messages?: Record<string, MessageOverrides>
}

/** The `i18n` option, checked and merged: what a configuration's runtime keeps. */
export interface ResolvedI18n {
  defaultLocale: string
  available: readonly string[]
  catalogs: ReadonlyMap<string, Messages>
  pick?: (request: Request) => string | undefined
}

/** Thrown by {@link resolveI18n} for an option it can't use; the config check reports it. */
export class I18nOptionError extends Error {}

const TAG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,4}$/

/**
 * A tag `Intl` accepts too: `en-a` or `de-de-de` pass the shape check, but the email's
 * `{duration}` (`Intl.NumberFormat`) throws on them — only when a browser asks for that
 * language, long after start-up. Refused with the rest of the option instead.
 */
function isLocaleTag(tag: string): boolean {
  if (!TAG.test(tag)) return false
  try {
    Intl.getCanonicalLocales(tag)
    new Intl.NumberFormat(tag)
    return true
  } catch {
    return false
  }
}

/** Checks the option and merges each catalog with its overrides, once per configuration. */
export function resolveI18n(options: I18nOptions | undefined): ResolvedI18n {
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options))) throw new I18nOptionError("i18n must be an object")
  const opts = options ?? {}
  const overrides = opts.messages ?? {}
  if (typeof overrides !== "object" || Array.isArray(overrides)) throw new I18nOptionError("i18n.messages must be an object keyed by locale tag")
  for (const tag of Object.keys(overrides)) if (!isLocaleTag(tag)) throw new I18nOptionError(`i18n.messages: "${tag}" is not a locale tag`)
  const known = [...new Set([...Object.keys(builtInCatalogs), ...Object.keys(overrides)])]
  const defaultLocale = opts.defaultLocale ?? "en"
  if (!known.includes(defaultLocale)) throw new I18nOptionError(`i18n.defaultLocale "${defaultLocale}" has no catalog; add it under i18n.messages`)
  const available = opts.locales ?? known
  if (!Array.isArray(available) || available.length === 0) throw new I18nOptionError("i18n.locales must be a non-empty array of locale tags")
  for (const tag of available) if (typeof tag !== "string" || !known.includes(tag)) throw new I18nOptionError(`i18n.locales: "${String(tag)}" has no catalog`)
  if (!available.includes(defaultLocale)) throw new I18nOptionError(`i18n.locales must include the defaultLocale "${defaultLocale}"`)
  if (typeof opts.locale === "string" && !available.includes(opts.locale)) throw new I18nOptionError(`i18n.locale "${opts.locale}" is not one of the available locales`)
  if (opts.locale !== undefined && typeof opts.locale !== "string" && typeof opts.locale !== "function") throw new I18nOptionError("i18n.locale must be a locale tag or a function of the request")

  const base = mergeCatalog(builtInCatalogs[defaultLocale] ?? en, overrides[defaultLocale], `i18n.messages.${defaultLocale}`)
  const catalogs = new Map<string, Messages>()
  for (const tag of available) {
    catalogs.set(tag, tag === defaultLocale ? base : mergeCatalog(builtInCatalogs[tag] ?? base, overrides[tag], `i18n.messages.${tag}`))
  }
  const locale = opts.locale
  const pick = typeof locale === "string" ? () => locale : locale
  return { defaultLocale, available, catalogs, ...(pick ? { pick } : {}) }
}

/** `base` with `override`'s strings put in, refusing keys the catalog doesn't have (typos). */
function mergeCatalog<T>(base: T, override: unknown, path: string): T {
  if (override === undefined) return base
  if (typeof base === "string") {
    if (typeof override !== "string") throw new I18nOptionError(`${path} must be a string`)
    if (path.endsWith(".dir") && override !== "ltr" && override !== "rtl") throw new I18nOptionError(`${path} must be "ltr" or "rtl"`)
    return override as T
  }
  if (typeof override !== "object" || override === null || Array.isArray(override)) throw new I18nOptionError(`${path} must be an object`)
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) }
  for (const [key, value] of Object.entries(override)) {
    if (!Object.hasOwn(out, key)) throw new I18nOptionError(`${path}.${key} is not a message of the catalog`)
    out[key] = mergeCatalog(out[key], value, `${path}.${key}`)
  }
  return out as T
}

/**
 * The language of one request: the configured choice, else `Accept-Language`, else the
 * default. The app's function reads the request (often a cookie anyone can set): when it
 * throws, `onError` hears of it and `Accept-Language` decides — a page must still render,
 * or the error page it redirects to would fail the same way and redirect to itself.
 */
export function localeOf(i18n: ResolvedI18n, request: Request, onError?: (error: unknown) => void): string {
  let chosen: string | undefined
  try {
    chosen = i18n.pick?.(request)
  } catch (error) {
    onError?.(error)
  }
  if (typeof chosen === "string") {
    const found = lookupLocale([chosen], i18n.available)
    if (found) return found
  }
  return lookupLocale(acceptedLanguages(request.headers.get("accept-language")), i18n.available) ?? i18n.defaultLocale
}

/** The catalog of `locale` (English when the configuration has none, e.g. renderers used alone). */
export function messagesOf(i18n: ResolvedI18n | undefined, locale: string): Messages {
  return i18n?.catalogs.get(locale) ?? en
}

/**
 * The language of a request as every page and email of core picks it: {@link localeOf}, with
 * an app's locale function that throws logged as a configuration problem (Accept-Language
 * then decides) instead of failing the request.
 */
export function requestLocale(ctx: { request: Request; config: { i18n: ResolvedI18n; logger: { error(error: Error): void } } }): string {
  return localeOf(ctx.config.i18n, ctx.request, localeFailed(ctx))
}

/** The `onError` of {@link localeOf} for a request: the app's locale function threw, logged as a configuration problem. */
export function localeFailed(ctx: { config: { logger: { error(error: Error): void } } }): (error: unknown) => void {
  return (error) => ctx.config.logger.error(new InvalidConfig("i18n.locale threw; Accept-Language chose the language instead", error instanceof Error ? error : new Error(String(error))))
}

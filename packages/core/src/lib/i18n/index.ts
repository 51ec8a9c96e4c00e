/**
 * Pages and emails in the user's language: the built-in catalogs, the configuration's
 * `i18n` option resolved once per configuration, the choice of language per request, and
 * the filling of `{placeholder}` sentences (escaped for HTML, or as plain text for mail).
 * @module
 */
import type { Messages, MessageOverrides } from "./catalog.js"
import { en } from "./catalogs/en.js"
import { acceptedLanguages, lookupLocale } from "./negotiate.js"
import { InvalidConfig } from "../../errors.js"

export type { Messages, MessageOverrides } from "./catalog.js"
export { acceptedLanguages, lookupLocale } from "./negotiate.js"
export { describeDuration, fill, fillText } from "./format.js"

/**
 * The catalogs that ship with Portcullis, by locale tag. English is the fallback of every
 * lookup and comes with this module; each other language is imported the first time a
 * configuration needs it — as its default, or for a request that negotiated it — so a
 * server whose visitors read English never loads the other seven (about 110 KiB minified).
 */
const builtInLoaders: Readonly<Record<string, () => Promise<Messages>>> = Object.freeze({
  en: async () => en,
  de: async () => (await import("./catalogs/de.js")).de,
  fr: async () => (await import("./catalogs/fr.js")).fr,
  es: async () => (await import("./catalogs/es.js")).es,
  pt: async () => (await import("./catalogs/pt.js")).pt,
  ja: async () => (await import("./catalogs/ja.js")).ja,
  zh: async () => (await import("./catalogs/zh.js")).zh,
  ar: async () => (await import("./catalogs/ar.js")).ar,
})

/** The tags of the built-in catalogs. */
export const builtInLocales: readonly string[] = Object.freeze(Object.keys(builtInLoaders))

/** The built-in catalog of `tag` (one of {@link builtInLocales}). */
export function loadBuiltInCatalog(tag: string): Promise<Messages> {
  const load = builtInLoaders[tag]
  return load ? load() : Promise.reject(new RangeError(`no built-in catalog "${tag}"`))
}

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
  /** The merged catalogs loaded so far: the default locale's from resolution on, others on first use. */
  catalogs: ReadonlyMap<string, Messages>
  pick?: (request: Request) => string | undefined
  /**
   * Loads the merged catalog of an available `locale` once; `undefined` when it is already
   * there (the common case, answered without a promise).
   */
  load(locale: string): Promise<void> | undefined
  /** The default locale's catalog, loading from resolution on; every request awaits it (`configProblem`). */
  checked: Promise<InvalidConfig | undefined>
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
  const known = [...new Set([...builtInLocales, ...Object.keys(overrides)])]
  const defaultLocale = opts.defaultLocale ?? "en"
  if (!known.includes(defaultLocale)) throw new I18nOptionError(`i18n.defaultLocale "${defaultLocale}" has no catalog; add it under i18n.messages`)
  const available = opts.locales ?? known
  if (!Array.isArray(available) || available.length === 0) throw new I18nOptionError("i18n.locales must be a non-empty array of locale tags")
  for (const tag of available) if (typeof tag !== "string" || !known.includes(tag)) throw new I18nOptionError(`i18n.locales: "${String(tag)}" has no catalog`)
  if (!available.includes(defaultLocale)) throw new I18nOptionError(`i18n.locales must include the defaultLocale "${defaultLocale}"`)
  if (typeof opts.locale === "string" && !available.includes(opts.locale)) throw new I18nOptionError(`i18n.locale "${opts.locale}" is not one of the available locales`)
  if (opts.locale !== undefined && typeof opts.locale !== "string" && typeof opts.locale !== "function") throw new I18nOptionError("i18n.locale must be a locale tag or a function of the request")

  // The overrides are checked now, against English (every built-in catalog has exactly its
  // keys, test/i18n/catalogs.test.ts), so a typo is a configuration error at start-up; each
  // catalog is merged with its overrides when it loads.
  const path = (tag: string) => `i18n.messages.${tag}`
  for (const tag of [defaultLocale, ...available.filter((tag) => tag !== defaultLocale)]) mergeCatalog(en, overrides[tag], path(tag))

  const catalogs = new Map<string, Messages>()
  const loading = new Map<string, Promise<void>>()
  // A language without a built-in catalog is the default locale's merged catalog with its own overrides.
  const catalogOf = async (tag: string): Promise<Messages> => {
    const builtIn = builtInLoaders[tag]
    if (tag === defaultLocale) return mergeCatalog(builtIn ? await builtIn() : en, overrides[tag], path(tag))
    if (!builtIn) await load(defaultLocale)
    return mergeCatalog(builtIn ? await builtIn() : catalogs.get(defaultLocale)!, overrides[tag], path(tag))
  }
  const load = (tag: string): Promise<void> | undefined => {
    if (catalogs.has(tag) || !available.includes(tag)) return undefined
    let pending = loading.get(tag)
    if (!pending) {
      pending = catalogOf(tag).then(
        (catalog) => void catalogs.set(tag, catalog),
        (error: unknown) => {
          // A failed import is retried by the next request that needs the language.
          loading.delete(tag)
          throw error
        },
      )
      loading.set(tag, pending)
    }
    return pending
  }
  const checked = Promise.resolve(load(defaultLocale)).then(
    () => undefined,
    (error: unknown) => new InvalidConfig(`The catalog of i18n.defaultLocale "${defaultLocale}" could not be loaded`, error as Error),
  )
  const locale = opts.locale
  const pick = typeof locale === "string" ? () => locale : locale
  return { defaultLocale, available, catalogs, load, checked, ...(pick ? { pick } : {}) }
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

/**
 * The catalog of `locale` (English when the configuration has none, e.g. renderers used
 * alone). Synchronous: the runtime has loaded the request's language before handling it
 * ({@link loadRequestLocale}); a language whose catalog failed to load reads as the default.
 */
export function messagesOf(i18n: ResolvedI18n | undefined, locale: string): Messages {
  return i18n?.catalogs.get(locale) ?? i18n?.catalogs.get(i18n.defaultLocale) ?? en
}

/**
 * {@link messagesOf} once `locale`'s catalog (or, failing that, the default's) has loaded:
 * for code that may run outside a request the runtime prepared (a security notice sent
 * from an app's own job, before any request).
 */
export async function loadedMessagesOf(i18n: ResolvedI18n, locale: string): Promise<Messages> {
  for (const tag of [locale, i18n.defaultLocale]) await i18n.load(tag)?.catch(() => undefined)
  return messagesOf(i18n, locale)
}

/**
 * Loads the catalog of the language `ctx`'s request will be answered in, before the request
 * is handled; `undefined` when it is already loaded. An app's locale function that throws
 * is logged where the language is used (`requestLocale`), not here as well.
 */
export function loadRequestLocale(ctx: { request: Request; config: { i18n: ResolvedI18n; logger: { error(error: Error): void } } }): Promise<void> | undefined {
  const locale = localeOf(ctx.config.i18n, ctx.request)
  return ctx.config.i18n.load(locale)?.catch((error: unknown) => {
    ctx.config.logger.error(new InvalidConfig(`The catalog of "${locale}" could not be loaded; answering in i18n.defaultLocale`, error as Error))
  })
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

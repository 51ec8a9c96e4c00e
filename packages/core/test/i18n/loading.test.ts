/**
 * Issue 30: each built-in language but English is loaded the first time a configuration
 * needs it — its default locale at resolution, any other when a request asks for it — and
 * the `i18n` option is still checked whole at start-up.
 */
import { describe, expect, it } from "vitest"
import { I18nOptionError, loadBuiltInCatalog, messagesOf, resolveI18n } from "../../src/lib/i18n/index.js"
import { en } from "../../src/lib/i18n/catalogs/en.js"

describe("a language's catalog", () => {
  it("is loaded for the default locale at resolution, and for another on first use, once", async () => {
    const i18n = resolveI18n({ defaultLocale: "de" })
    expect(await i18n.checked).toBeUndefined()
    expect([...i18n.catalogs.keys()]).toEqual(["de"])
    expect(messagesOf(i18n, "de")).toEqual(await loadBuiltInCatalog("de"))
    // Not loaded yet: the default's sentences, never a missing catalog.
    expect(messagesOf(i18n, "fr")).toBe(messagesOf(i18n, "de"))
    const loading = i18n.load("fr")
    expect(i18n.load("fr")).toBe(loading)
    await loading
    expect(i18n.load("fr")).toBeUndefined()
    expect(messagesOf(i18n, "fr")).toEqual(await loadBuiltInCatalog("fr"))
  })

  it("is not loaded for a language the configuration does not offer", async () => {
    const i18n = resolveI18n({ locales: ["en"] })
    await i18n.checked
    expect(i18n.load("ja")).toBeUndefined()
    expect(messagesOf(i18n, "ja")).toBe(messagesOf(i18n, "en"))
    expect(messagesOf(i18n, "en")).toEqual(en)
  })

  it("with overrides is merged when it loads; a language of the app's own starts from the default's", async () => {
    const i18n = resolveI18n({ defaultLocale: "de", messages: { de: { signin: { heading: "Willkommen" } }, fr: { signin: { heading: "Bienvenue" } }, it: { signin: { heading: "Accedi" } } } })
    await i18n.load("fr")
    await i18n.load("it")
    expect(messagesOf(i18n, "de").signin.heading).toBe("Willkommen")
    expect(messagesOf(i18n, "fr").signin.heading).toBe("Bienvenue")
    expect(messagesOf(i18n, "it").signin.heading).toBe("Accedi")
    // The rest of the app's own language is the default locale's, overrides included.
    expect(messagesOf(i18n, "it").signin.submit).toBe((await loadBuiltInCatalog("de")).signin.submit)
  })
})

describe("the i18n option", () => {
  it("is checked whole at resolution, the overrides of languages not loaded yet included", () => {
    expect(() => resolveI18n({ messages: { ja: { signin: { headng: "x" } } as never } })).toThrow(I18nOptionError)
    expect(() => resolveI18n({ messages: { ar: { dir: "up" } as never } })).toThrow(/i18n\.messages\.ar\.dir must be "ltr" or "rtl"/)
  })
})

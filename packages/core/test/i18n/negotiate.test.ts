/**
 * Issue 20, part 4: the language of a request from `Accept-Language` (RFC 9110 §12.5.4,
 * RFC 4647 lookup). The header is the client's to write, so hostile values must be read
 * within bounds and never fail the request.
 */
import { describe, expect, it } from "vitest"
import { acceptedLanguages, lookupLocale } from "../../src/lib/i18n/negotiate.js"

const available = ["en", "de", "fr", "es", "pt", "ja", "zh", "ar", "pt-BR"]
const pick = (header: string | null) => lookupLocale(acceptedLanguages(header), available)

describe("Accept-Language", () => {
  it("follows quality values, and the header's order among equals", () => {
    expect(acceptedLanguages("fr;q=0.5, de, ja;q=0.9")).toEqual(["de", "ja", "fr"])
    expect(acceptedLanguages("es, fr")).toEqual(["es", "fr"])
    expect(pick("fr;q=0.5, de-CH, ja;q=0.9")).toBe("de")
  })

  it("drops q=0 (not acceptable) and malformed ranges and qualities", () => {
    expect(acceptedLanguages("de;q=0, fr")).toEqual(["fr"])
    expect(acceptedLanguages("de;q=2, <script>, fr;q=abc, ja;q=0.8, es;level=1")).toEqual(["es", "ja"])
    expect(pick("de;q=0")).toBeUndefined()
  })

  it("shortens a range until something matches (de-CH-1996 → de), and prefers an exact regional catalog", () => {
    expect(pick("de-CH-1996")).toBe("de")
    expect(pick("pt-BR")).toBe("pt-BR")
    expect(pick("pt-PT")).toBe("pt")
    expect(pick("ja-JP")).toBe("ja")
    expect(pick("zh-CN")).toBe("zh")
    expect(pick("zh-Hans-CN")).toBe("zh")
    expect(pick("DE-de")).toBe("de")
  })

  it("does not serve Simplified Chinese to readers of Traditional Chinese", () => {
    for (const range of ["zh-TW", "zh-HK", "zh-MO", "zh-Hant", "zh-Hant-TW"]) expect(pick(range)).toBeUndefined()
    expect(pick("zh-TW, ja;q=0.5")).toBe("ja")
    expect(lookupLocale(["zh-Hant-TW"], ["en", "zh", "zh-Hant"])).toBe("zh-Hant")
  })

  it("gives nothing for *, an empty or missing header, or only unknown languages", () => {
    for (const header of ["*", "", null, "xx, yy-ZZ", ";;;,,,"]) expect(pick(header)).toBeUndefined()
  })

  it("reads at most 1 KiB and 32 ranges of a hostile header, quickly and without throwing", () => {
    const huge = Array.from({ length: 100_000 }, (_, i) => `x${i % 10}`).join(",") + ",de"
    expect(pick(huge)).toBeUndefined()
    expect(acceptedLanguages(huge).length).toBeLessThanOrEqual(32)
    expect(acceptedLanguages("a".repeat(100_000))).toEqual([])
    expect(acceptedLanguages("de-" + "a".repeat(9))).toEqual([])
    expect(pick("en-x-private")).toBe("en")
  })
})

/**
 * Issue 20, part 4: every built-in catalog has every sentence, with the same placeholders,
 * and is actually translated; the sign-in and error pages know exactly the codes the
 * catalogs explain.
 */
import { describe, expect, it } from "vitest"
import { builtInLocales, loadBuiltInCatalog } from "../../src/lib/i18n/index.js"
import { en } from "../../src/lib/i18n/catalogs/en.js"
import { errorPageMessages, signinErrorMessages } from "../../src/lib/pages/messages.js"

// Core loads each language but English on first use; here, all of them up front.
const builtInCatalogs = Object.fromEntries(await Promise.all(builtInLocales.map(async (tag) => [tag, await loadBuiltInCatalog(tag)] as const)))

/** Every string of a catalog by its dotted path. */
function leaves(value: unknown, path = ""): Map<string, string> {
  const out = new Map<string, string>()
  if (typeof value === "string") out.set(path, value)
  else for (const [key, child] of Object.entries(value as object)) for (const [p, v] of leaves(child, path ? `${path}.${key}` : key)) out.set(p, v)
  return out
}

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
const english = leaves(en)
const required = ["en", "de", "fr", "es", "pt", "ja", "zh"]

describe("the built-in catalogs", () => {
  it("include the languages the issue asks for, and a right-to-left one", () => {
    for (const tag of required) expect(builtInCatalogs).toHaveProperty(tag)
    expect(builtInCatalogs.ar!.dir).toBe("rtl")
    for (const tag of required) expect(builtInCatalogs[tag]!.dir).toBe("ltr")
  })

  for (const [tag, catalog] of Object.entries(builtInCatalogs)) {
    describe(tag, () => {
      const own = leaves(catalog)
      it("has exactly English's keys", () => {
        expect([...own.keys()].sort()).toEqual([...english.keys()].sort())
      })
      it("uses the same placeholders in every sentence, and no empty sentence", () => {
        for (const [path, text] of own) {
          expect(text.trim(), path).not.toBe("")
          expect(placeholders(text), path).toEqual(placeholders(english.get(path)!))
        }
      })
      if (tag !== "en") it("is translated: nearly every sentence differs from English", () => {
        const same = [...own].filter(([path, text]) => path !== "dir" && text === english.get(path))
        // A few words may be spelled alike (e.g. "Error" in Spanish).
        expect(same.length, same.map(([p]) => p).join(", ")).toBeLessThanOrEqual(2)
      })
    })
  }

  it("explain exactly the codes the sign-in page and the error page know", () => {
    expect(Object.keys(en.signin.errors).sort()).toEqual(Object.keys(signinErrorMessages).sort())
    expect(Object.keys(en.error.pages).sort()).toEqual(Object.keys(errorPageMessages).sort())
  })
})

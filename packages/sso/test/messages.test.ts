/**
 * SSO's sentences: every language core speaks has a catalog, every catalog has every key English
 * has and no other, each sentence keeps English's `{placeholders}`, and every key the extension
 * asks `t` for (or refuses with, as `error.<code>` on a page) is in English.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { messages } from "@portcullis/sso"

const languages = ["de", "fr", "es", "pt", "ja", "zh", "ar"]
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
const english = messages.en! as Record<string, string>

describe("the catalogs", () => {
  it("cover core's eight languages", () => {
    expect(Object.keys(messages).sort()).toEqual(["en", ...languages].sort())
  })
})

describe.each(languages)("the %s catalog", (language) => {
  const catalog = messages[language]! as Record<string, string>

  it("has every key English has, and no other, none left in English", () => {
    const missing = Object.keys(english).filter((key) => typeof catalog[key] !== "string" || catalog[key] === "")
    const extra = Object.keys(catalog).filter((key) => !(key in english))
    const untranslated = Object.keys(english).filter((key) => key !== "error.title" && catalog[key] === english[key])
    expect({ missing, extra, untranslated }).toEqual({ missing: [], extra: [], untranslated: [] })
  })

  it("keeps English's placeholders in every sentence", () => {
    const differing = Object.entries(english).filter(([key, text]) => catalog[key] !== undefined && placeholders(catalog[key]!).join() !== placeholders(text).join())
    expect(differing.map(([key]) => key)).toEqual([])
  })
})

describe("the keys the extension uses", () => {
  const sources = ["index.ts", "routes/sign-in.ts", "pages.ts", "routes/pages.ts"].map((f) => readFileSync(new URL(`../src/${f}`, import.meta.url), "utf8")).join("\n")

  it("are all in English: t(…) keys, and the codes page routes refuse with", () => {
    const keys = new Set([...sources.matchAll(/\bt\("([\w.-]+)"/g)].map((m) => m[1]!))
    const codes = [...sources.matchAll(/ExtensionRequestError\("([\w-]+)"/g)].map((m) => `error.${m[1]!}`)
    expect(keys.size).toBeGreaterThan(0)
    expect(codes.length).toBeGreaterThan(1)
    expect([...keys, ...codes].filter((key) => !(key in english))).toEqual([])
  })

  it("have a sentence for every notice the settings page's forms redirect with (done.<key>)", () => {
    const forms = readFileSync(new URL("../src/routes/pages.ts", import.meta.url), "utf8")
    const done = [...forms.matchAll(/^\s*form\(.*, "(\w+)"\),$/gm)].map((m) => `done.${m[1]!}`)
    expect(done.length).toBeGreaterThan(5)
    expect(done.filter((key) => !(key in english))).toEqual([])
  })
})

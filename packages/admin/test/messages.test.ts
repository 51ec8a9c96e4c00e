/**
 * The console's sentences: every language core speaks has a catalog, every catalog has every
 * key English has and no other, each sentence keeps English's `{placeholders}`, and every key
 * the pages ask `t` for is in English.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { messages } from "@portcullis/admin"

const languages = ["de", "fr", "es", "pt", "ja", "zh", "ar"]
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
const english = messages.en!

describe("the catalogs", () => {
  it("cover core's eight languages", () => {
    expect(Object.keys(messages).sort()).toEqual(["en", ...languages].sort())
  })
})

describe.each(languages)("the %s catalog", (language) => {
  const catalog = messages[language]!

  it("has every key English has, and no other", () => {
    const missing = Object.keys(english).filter((key) => typeof catalog[key] !== "string" || catalog[key] === "")
    const extra = Object.keys(catalog).filter((key) => !(key in english))
    expect({ missing, extra }).toEqual({ missing: [], extra: [] })
  })

  it("keeps English's placeholders in every sentence", () => {
    const differing = Object.entries(english).filter(([key, text]) => catalog[key] !== undefined && placeholders(catalog[key]!).join() !== placeholders(text).join())
    expect(differing.map(([key]) => key)).toEqual([])
  })
})

describe("the keys the pages use", () => {
  it("are all in English", () => {
    const sources = ["pages.ts", "banner.ts", "routes.ts", "react.ts"].map((f) => readFileSync(new URL(`../src/${f}`, import.meta.url), "utf8")).join("\n")
    const keys = new Set([...sources.matchAll(/\bt\("([\w.-]+)"/g)].map((m) => m[1]!))
    expect(keys.size).toBeGreaterThan(20)
    expect([...keys].filter((key) => !(key in english))).toEqual([])
  })
})

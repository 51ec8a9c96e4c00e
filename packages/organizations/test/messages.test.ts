/**
 * The sentences of organizations: each of core's eight languages has a catalog with every key
 * English has (and no other), with the same placeholders, and every refusal code the
 * operations throw has its `error.<code>` sentence.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { messages } from "@portcullis/organizations"

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

const languages = ["de", "fr", "es", "pt", "ja", "zh", "ar"]
const english: Readonly<Record<string, string>> = messages.en!

describe("the messages", () => {
  it("have a catalog for each of core's eight languages", () => {
    expect(Object.keys(messages).sort()).toEqual(["en", ...languages].sort())
  })

  it.each(languages)("of %s have every English key, and no other", (language) => {
    const catalog: Readonly<Record<string, string>> = messages[language]!
    const missing = Object.keys(english).filter((key) => typeof catalog[key] !== "string" || catalog[key] === "")
    const extra = Object.keys(catalog).filter((key) => !(key in english))
    expect({ missing, extra }).toEqual({ missing: [], extra: [] })
  })

  it.each(languages)("of %s keep English's placeholders in every sentence", (language) => {
    const catalog: Readonly<Record<string, string>> = messages[language]!
    const differing = Object.entries(english).filter(([key, text]) => catalog[key] !== undefined && placeholders(catalog[key]!).join() !== placeholders(text).join())
    expect(differing.map(([key]) => key)).toEqual([])
  })

  it("name every refusal code the operations and routes throw", () => {
    const sources = ["operations.ts", "validation.ts", "routes/organizations.ts"].map((f) => readFileSync(new URL(`../src/${f}`, import.meta.url), "utf8")).join("\n")
    const codes = new Set([...sources.matchAll(/ExtensionRequestError\(\s*"([a-z-]+)"/g), ...sources.matchAll(/invalid\("([a-z-]+)"/g)].map((m) => m[1]!))
    codes.add("forbidden").add("not-found").add("invitation-unavailable").add("member-not-found").add("email-mismatch").add("email-unverified")
    for (const code of codes) expect(messages.en![`error.${code}` as keyof (typeof messages)["en"]], code).toBeTypeOf("string")
  })
})

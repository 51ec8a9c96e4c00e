/**
 * The sentences of organizations: every language has every key English has, with the same
 * placeholders, and every refusal code the operations throw has its `error.<code>` sentence.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { messages } from "@portcullis/organizations"

const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()

describe("the messages", () => {
  it.each(["de", "fr", "es", "ja", "ar"])("of %s have every English key with the same placeholders", (language) => {
    const catalog = messages[language]!
    for (const [key, english] of Object.entries(messages.en!)) {
      expect(catalog[key as keyof typeof catalog], key).toBeTypeOf("string")
      expect(placeholders(catalog[key as keyof typeof catalog]), key).toEqual(placeholders(english))
    }
  })

  it("name every refusal code the operations and routes throw", () => {
    const sources = ["operations.ts", "validation.ts", "routes/organizations.ts"].map((f) => readFileSync(new URL(`../src/${f}`, import.meta.url), "utf8")).join("\n")
    const codes = new Set([...sources.matchAll(/ExtensionRequestError\(\s*"([a-z-]+)"/g), ...sources.matchAll(/invalid\("([a-z-]+)"/g)].map((m) => m[1]!))
    codes.add("forbidden").add("not-found").add("invitation-unavailable").add("member-not-found").add("email-mismatch").add("email-unverified")
    for (const code of codes) expect(messages.en![`error.${code}` as keyof (typeof messages)["en"]], code).toBeTypeOf("string")
  })
})

/**
 * The breached-password check's fixed values (`lib/password-flows/breached.ts`): the range
 * API asked by default and the most of an answer that is read. docs/passwords.md documents
 * both.
 *
 * They are constants computed when the module loads, so each test loads it anew
 * (`vi.resetModules()`, then `import()`) and reads what the module computes now — which is
 * also what lets mutation testing reach them (it switches a mutant on per test, after a
 * file's static imports ran). Nothing of core is imported statically here for that reason.
 */
import { describe, expect, it, vi } from "vitest"

async function fresh() {
  vi.resetModules()
  return import("../../src/lib/password-flows/breached.js")
}

describe("the default range API", () => {
  it("is Have I Been Pwned's Pwned Passwords", async () => {
    const { breachCheckOf, DEFAULT_RANGE_URL } = await fresh()
    expect(DEFAULT_RANGE_URL).toBe("https://api.pwnedpasswords.com")
    expect(breachCheckOf({})!.url).toBe("https://api.pwnedpasswords.com")
  })
})

describe("the most of an answer that is read", () => {
  it("is 1 MiB: an answer of exactly that size is read, one byte more is too large", async () => {
    const { breachLookup } = await fresh()
    const row = `${"0".repeat(35)}:1\r\n`
    const answer = (size: number) => row.repeat(Math.floor(size / row.length)) + " ".repeat(size % row.length)
    const check = (body: string) => ({ url: "https://pwned.example", minCount: 1, timeout: 5000, onError: "open" as const, fetch: async () => new Response(body) })
    expect(await breachLookup(check(answer(1024 * 1024)), "copper meadow whistle saturn")).toEqual({ count: 0 })
    expect(await breachLookup(check(answer(1024 * 1024 + 1)), "copper meadow whistle saturn")).toEqual({ failure: "too-large" })
  })
})

/**
 * Issue 28 item 9: every spelling that reaches one user reaches one lockout counter. The
 * password provider finds users by `normalizeEmail` (NFC, lower-cased); the lockout folded the
 * raw input with NFKC first, and the two disagree on the lunate sigma: `Ϲ` (U+03F9) lower-cases
 * to `ϲ` (U+03F2), so both find the user stored as `…ϲ@…`, but NFKC makes `ς` of one and `σ` of
 * the other — two counters, twice the guesses.
 */
import { describe, expect, it } from "vitest"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { normaliseIdentifier } from "../../src/lib/rate-limit/limiter.js"
import { normalizeEmail } from "../../src/lib/email/normalize.js"
import { LIGHT, passwordApp, passwordSignIn, seedUser } from "../password/support.js"
import { attempt, lockoutApp } from "./support.js"

const LUNATE_CAPITAL = "\u03f9" // Ϲ
const LUNATE_SMALL = "\u03f2" // ϲ
// Inside a word: at its end, lower-casing happens to make the final sigma of both.
const owner = { email: `a${LUNATE_SMALL}e@example.com`, password: "a long and rather unguessable passphrase" }

async function app() {
  const adapter = MemoryAdapter()
  await seedUser(adapter, owner)
  return passwordApp(adapter, { provider: { hashing: LIGHT }, extra: { rateLimit: {} } })
}

describe("password guesses spread over spellings of one address", () => {
  it("share one lockout: the capital and small lunate sigma give five guesses together, not five each", async () => {
    const { browser } = await app()
    // Both spellings sign in to the owner (the lookup lower-cases Ϲ to ϲ) ...
    const spellings = [`a${LUNATE_CAPITAL}e@example.com`, `a${LUNATE_SMALL}e@example.com`]
    expect(new Set(spellings.map((s) => normalizeEmail(s)))).toEqual(new Set([owner.email]))
    // ... so the attacker alternates them, from a new address each time.
    const errors = []
    for (let i = 0; i < 10; i++) errors.push((await passwordSignIn(browser(`203.0.113.${i + 1}`), { email: spellings[i % 2]!, password: `guess ${i}` })).error)
    expect(errors).toEqual([...Array(5).fill("CredentialsSignin"), ...Array(5).fill("RateLimited")])
    // The owner's right password is refused during the lockout, in either spelling.
    for (const email of spellings) expect((await passwordSignIn(browser("198.51.100.1"), { email, password: owner.password })).error).toBe("RateLimited")
  })

  it("share one lockout with upper case, spaces and full-width spellings too", async () => {
    const { browser } = await app()
    const spellings = [`A${LUNATE_CAPITAL}E@EXAMPLE.COM`, ` a${LUNATE_SMALL}e@example.com `, `ａ${LUNATE_SMALL}ｅ@example.com`, `A${LUNATE_CAPITAL}e@Example.com`, `a${LUNATE_CAPITAL}e@example.com`, `a${LUNATE_SMALL}e@example.com`]
    const errors = []
    for (const [i, email] of spellings.entries()) errors.push((await passwordSignIn(browser(`203.0.113.${i + 1}`), { email, password: "guess" })).error)
    expect(errors).toEqual([...Array(5).fill("CredentialsSignin"), "RateLimited"])
  })
})

describe("a credentials app's usernames", () => {
  it("count the Greek sigmas of one name once, wherever in the word they stand", async () => {
    const { browser, calls } = lockoutApp({ perIdentifier: { credentials: { max: 3, window: 900 } } })
    for (const username of ["ΟΔΥΣΣΕΥΣ", "οδυσσευς", "οδυσσευσ", "ΟΔΥϹϹΕΥϹ", "οδυϲϲευϲ"]) await attempt(browser(), { username, password: "x" })
    expect(calls.authorize).toBe(3)
  })
})

describe("the lockout's fold", () => {
  it("gives every string the same counter as the form the user lookup finds it by", () => {
    // Each character of the Greek, Coptic, Cyrillic and letter-like blocks, in three positions.
    const blocks: [number, number][] = [[0x370, 0x4ff], [0x1f00, 0x1fff], [0x2100, 0x214f], [0xff00, 0xffef]]
    const differing: string[] = []
    for (const [from, to] of blocks) {
      for (let cp = from; cp <= to; cp++) {
        const c = String.fromCodePoint(cp)
        for (const input of [`ada${c}@example.com`, `${c}ada@example.com`, `a${c}a@example.com`]) {
          let lookup: string
          try {
            lookup = normalizeEmail(input)
          } catch {
            continue
          }
          if (normaliseIdentifier(input) !== normaliseIdentifier(lookup)) differing.push(`U+${cp.toString(16)} in ${input}`)
        }
      }
    }
    expect(differing).toEqual([])
  })

  it("folds the pairs a lookup or a collation takes as one", () => {
    const one = (...spellings: string[]) => expect(new Set(spellings.map(normaliseIdentifier)).size, spellings.join(" / ")).toBe(1)
    one(`ada${LUNATE_CAPITAL}@x.com`, `ada${LUNATE_SMALL}@x.com`, "adaσ@x.com", "adaς@x.com", "adaΣ@x.com")
    one("\u212aelvin", "kelvin", "Kelvin") // KELVIN SIGN
    one("\u212bngstrom", "\u00e5ngstrom", "angstrom") // ANGSTROM SIGN, å, and without the ring
    one("\ufb01le", "file") // the ﬁ ligature
  })
})

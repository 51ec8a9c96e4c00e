/**
 * The lockout's fold (`normaliseIdentifier`) works on at most 1,280 characters of what was
 * submitted. Found by mutation testing (issue 36): the bound was taken before the fold, so
 * 1,280 characters that the fold drops anyway — leading spaces, combining marks, soft
 * hyphens — in front of `ada` left nothing to count, and the attempt was counted against no
 * identifier at all. An app whose lookup trims the name, or whose collation compares marks
 * and invisible characters away (MySQL/MariaDB's defaults), still found Ada: unlimited
 * guesses at her password. What the fold drops never uses up the bound now.
 */
import { describe, expect, it } from "vitest"
import { createAuth } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { normaliseIdentifier } from "../../src/lib/rate-limit/limiter.js"
import { attempt } from "./support.js"
import { ada, Browser, SECRET } from "../helpers.js"

const PADDINGS: [string, string][] = [
  ["leading spaces (an app that trims the name)", " ".repeat(1280)],
  ["leading ideographic spaces", "\u3000".repeat(1280)],
  ["combining marks (a collation that compares accents away)", "\u0301".repeat(1280)],
  ["soft hyphens (a collation that ignores them)", "\u00AD".repeat(1280)],
  ["zero-width spaces", "\u200B".repeat(2000)],
]

/** A credentials app whose user lookup finds a name the way a trimming, accent-insensitive lookup does. */
function app() {
  let authorized = 0
  const lookup = (name: unknown) =>
    String(name)
      .normalize("NFKD")
      .replace(/[\p{M}\u00AD\u200B]/gu, "")
      .trim()
  const auth = createAuth({
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        async authorize({ username, password }) {
          authorized++
          return lookup(username) === ada.username && password === ada.password ? { id: "user-ada", name: "Ada" } : null
        },
      }),
    ],
    rateLimit: { perAddress: { credentials: false } },
    logger: { error() {}, warn() {}, debug() {} },
  })
  // A new address for every attempt: only the identifier's lockout can stop the guesses.
  let n = 0
  const browser = () => new Browser((request) => auth.handle(request, { clientAddress: `198.51.100.${++n}` }), "http://localhost:3000")
  return { browser, authorized: () => authorized }
}

describe("padding in front of a name the fold drops", () => {
  for (const [label, padding] of PADDINGS) {
    it(`still counts against the name: ${label}`, async () => {
      expect(normaliseIdentifier(`${padding}ada`)).toBe("ada")
      const { browser, authorized } = app()
      const errors = []
      for (let i = 0; i < 6; i++) errors.push((await attempt(browser(), { username: `${padding}ada`, password: `guess-${i}` })).error)
      expect(errors).toEqual(["CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "CredentialsSignin", "RateLimited"])
      expect(authorized()).toBe(5)
      // Locked: even her right password, typed plainly, is refused.
      expect((await attempt(browser(), { username: "ada", password: ada.password })).error).toBe("RateLimited")
    })
  }

  it("marks between the letters are dropped before the bound too", () => {
    expect(normaliseIdentifier(`a${"\u0301".repeat(1280)}da`)).toBe("ada")
  })

  it("text that really is long is still cut (at 320 characters of the fold)", () => {
    expect(normaliseIdentifier("x".repeat(5000))).toBe("x".repeat(320))
    expect(normaliseIdentifier(`${" ".repeat(10)}${"y".repeat(400)}`)).toBe("y".repeat(320))
  })
})

import { describe, expect, it } from "vitest"
import { PasswordRejected } from "../../src/errors.js"
import type { PasswordConfig } from "@portcullis/core/providers/password"
import { checkNewPassword } from "../../src/lib/password-flows/policy.js"
import { buildEstimator } from "../../src/lib/password-flows/estimator.js"
import { PasswordStrength } from "../../src/lib/password-flows/strength.js"
import type { Telemetry } from "../../src/lib/telemetry/index.js"
import type { LogLimiter } from "../../src/lib/log-limiter.js"

/**
 * The rules a new password meets (`checkNewPassword` in `lib/password-flows/policy.ts`), in
 * their order: a string at all, `policy.minLength` code points, at most 1024 bytes, a
 * strength score of `policy.minScore` with the address as known words, and — with
 * `policy.breached` — not in the range API's list. Each refusal has its code (the page
 * shows it) and its own sentence (the error's message).
 */

type Policy = NonNullable<PasswordConfig["policy"]>
const provider = (policy?: Policy) => ({ policy }) as PasswordConfig

/** A strength estimate that answers `score` and records what it was asked. */
function scoring(score: number, log?: LogLimiter) {
  const asked: { password: string; userInputs: string[] }[] = []
  const strength = {
    log,
    score: async (password: string, userInputs: string[]) => (asked.push({ password, userInputs }), score),
  } as unknown as PasswordStrength
  return { strength, asked }
}

/** The refusal `run` ends in, as (code, message). */
async function refusal(run: Promise<unknown>) {
  const error = await run.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(PasswordRejected)
  return { code: (error as PasswordRejected).code, message: (error as PasswordRejected).message }
}

const EMAIL = "grace@example.com"

describe("no password", () => {
  it.each([undefined, 12345678, ["a long enough password"]])("%j is refused as too short: none was submitted", async (password) => {
    expect(await refusal(checkNewPassword(provider(), scoring(4).strength, password, EMAIL))).toEqual({ code: "PasswordTooShort", message: "No password was submitted" })
  })
})

describe("the length", () => {
  it("is at least 8 by default: 7 characters are refused, saying the minimum; 8 pass", async () => {
    expect(await refusal(checkNewPassword(provider(), scoring(4).strength, "1234567", EMAIL))).toEqual({ code: "PasswordTooShort", message: "The new password is shorter than 8 characters" })
    expect(await checkNewPassword(provider(), scoring(4).strength, "12345678", EMAIL)).toBe("12345678")
  })

  it("is at least policy.minLength", async () => {
    expect(await refusal(checkNewPassword(provider({ minLength: 12 }), scoring(4).strength, "12345678901", EMAIL))).toEqual({ code: "PasswordTooShort", message: "The new password is shorter than 12 characters" })
    expect(await checkNewPassword(provider({ minLength: 12 }), scoring(4).strength, "123456789012", EMAIL)).toBe("123456789012")
  })

  it("counts code points: 8 emoji are 8 characters (16 UTF-16 units), short of 9", async () => {
    const emoji = "🔒".repeat(8)
    expect((await refusal(checkNewPassword(provider({ minLength: 9 }), scoring(4).strength, emoji, EMAIL))).code).toBe("PasswordTooShort")
    expect(await checkNewPassword(provider({ minLength: 8 }), scoring(4).strength, emoji, EMAIL)).toBe(emoji)
  })

  it("at the largest minLength (1024), a password of exactly 1024 characters passes", async () => {
    const password = "x".repeat(1024)
    expect(await checkNewPassword(provider({ minLength: 1024 }), scoring(4).strength, password, EMAIL)).toBe(password)
  })
})

describe("the size", () => {
  it("is at most 1024 bytes: exactly 1024 pass, 1025 are refused as too long, saying the bound", async () => {
    expect(await checkNewPassword(provider(), scoring(4).strength, "x".repeat(1024), EMAIL)).toBe("x".repeat(1024))
    expect(await refusal(checkNewPassword(provider(), scoring(4).strength, "x".repeat(1025), EMAIL))).toEqual({ code: "PasswordTooLong", message: "The new password is longer than 1024 bytes" })
  })

  it("counts UTF-8 bytes: 513 two-byte characters are too long", async () => {
    expect((await refusal(checkNewPassword(provider(), scoring(4).strength, "é".repeat(513), EMAIL))).code).toBe("PasswordTooLong")
    expect(await checkNewPassword(provider(), scoring(4).strength, "é".repeat(512), EMAIL)).toBe("é".repeat(512))
  })
})

describe("the strength", () => {
  it("is a score of at least 3 by default: 2 is refused, saying both; 3 passes", async () => {
    expect(await refusal(checkNewPassword(provider(), scoring(2).strength, "a password", EMAIL))).toEqual({
      code: "PasswordTooWeak",
      message: "The new password scores 2, below the minimum of 3",
    })
    expect(await checkNewPassword(provider(), scoring(3).strength, "a password", EMAIL)).toBe("a password")
  })

  it("is at least policy.minScore", async () => {
    expect((await refusal(checkNewPassword(provider({ minScore: 4 }), scoring(3).strength, "a password", EMAIL))).code).toBe("PasswordTooWeak")
    expect(await checkNewPassword(provider({ minScore: 1 }), scoring(1).strength, "a password", EMAIL)).toBe("a password")
  })

  it("is estimated with the address and its local part as known words", async () => {
    const { strength, asked } = scoring(4)
    await checkNewPassword(provider(), strength, "a password", "grace.hopper@example.com")
    expect(asked).toEqual([{ password: "a password", userInputs: ["grace.hopper@example.com", "grace.hopper"] }])
  })

  it("with the real estimate, a password made of the address's local part is too weak", async () => {
    const refused = await refusal(checkNewPassword(provider(), new PasswordStrength(buildEstimator), "quixotic.zephyrine", "quixotic.zephyrine@example.com"))
    expect(refused.code).toBe("PasswordTooWeak")
  })

  it("is not estimated at all with minScore 0", async () => {
    const { strength, asked } = scoring(0)
    expect(await checkNewPassword(provider({ minScore: 0 }), strength, "12345678", EMAIL)).toBe("12345678")
    expect(asked).toEqual([])
  })
})

describe("the breached-password list", () => {
  const PASSWORD = "violet tractor sandwich orbit"
  /** A range API listing PASSWORD `count` times, or answering `status`. */
  const listing =
    (count: number, status = 200): typeof fetch =>
    async (input) => {
      const prefix = String(input).slice(-5)
      const { createHash } = await import("node:crypto")
      const hash = createHash("sha1").update(PASSWORD).digest("hex").toUpperCase()
      return new Response(prefix === hash.slice(0, 5) ? `${hash.slice(5)}:${count}` : "", { status })
    }

  it("refuses a password seen at least minCount times, saying how often", async () => {
    expect(await refusal(checkNewPassword(provider({ breached: { fetch: listing(5) } }), scoring(4).strength, PASSWORD, EMAIL))).toEqual({
      code: "PasswordBreached",
      message: "The new password appears in 5 breaches (minCount 1)",
    })
    expect(await refusal(checkNewPassword(provider({ breached: { fetch: listing(3), minCount: 3 } }), scoring(4).strength, PASSWORD, EMAIL))).toEqual({
      code: "PasswordBreached",
      message: "The new password appears in 3 breaches (minCount 3)",
    })
  })

  it("accepts one seen fewer times than minCount, and one not listed", async () => {
    expect(await checkNewPassword(provider({ breached: { fetch: listing(2), minCount: 3 } }), scoring(4).strength, PASSWORD, EMAIL)).toBe(PASSWORD)
    expect(await checkNewPassword(provider({ breached: { fetch: listing(0) } }), scoring(4).strength, PASSWORD, EMAIL)).toBe(PASSWORD)
  })

  it("is not asked when the check is off", async () => {
    let asked = 0
    const fetch: typeof globalThis.fetch = async () => (asked++, new Response(""))
    await checkNewPassword(provider({ breached: { enabled: false, fetch } }), scoring(4).strength, PASSWORD, EMAIL)
    expect(asked).toBe(0)
  })

  describe("when it fails", () => {
    function warnings() {
      const lines: unknown[][] = []
      return { lines, log: { warn: (...args: unknown[]) => lines.push(args) } as unknown as LogLimiter }
    }

    it('onError "open": accepted, with a warning naming the failure, the choice and the API\'s origin', async () => {
      const { lines, log } = warnings()
      const policy = { breached: { url: "https://user:secret@pwned.example/api", fetch: listing(9, 503) } }
      expect(await checkNewPassword(provider(policy), scoring(4, log).strength, PASSWORD, EMAIL)).toBe(PASSWORD)
      expect(lines).toEqual([["password-breach-check-failed", "status", { onError: "open", origin: "https://pwned.example" }]])
    })

    it('onError "closed": refused as unavailable, saying why, after the same warning', async () => {
      const { lines, log } = warnings()
      const policy = { breached: { url: "https://pwned.example", onError: "closed" as const, fetch: listing(9, 503) } }
      expect(await refusal(checkNewPassword(provider(policy), scoring(4, log).strength, PASSWORD, EMAIL))).toEqual({
        code: "PasswordCheckUnavailable",
        message: 'The breached-password check failed (status); onError is "closed"',
      })
      expect(lines).toEqual([["password-breach-check-failed", "status", { onError: "closed", origin: "https://pwned.example" }]])
    })

    it("without a log to warn in, still accepted", async () => {
      expect(await checkNewPassword(provider({ breached: { fetch: listing(9, 503) } }), scoring(4).strength, PASSWORD, EMAIL)).toBe(PASSWORD)
    })
  })

  describe("under tracing", () => {
    /** Telemetry whose outbound wrapper records what it wrapped and for what. */
    function traced(tracing: boolean) {
      const wrapped: { base: typeof fetch; purpose: string; calls: number }[] = []
      const telemetry = {
        tracing,
        outbound(base: typeof fetch, purpose: string): typeof fetch {
          const entry = { base, purpose, calls: 0 }
          wrapped.push(entry)
          return (input, init) => (entry.calls++, base(input, init))
        },
      } as unknown as Telemetry
      return { telemetry, wrapped }
    }

    it("the range request goes through the configured fetch, wrapped in a client span named for the breach check", async () => {
      const { telemetry, wrapped } = traced(true)
      const fetch = listing(5)
      const refused = await refusal(checkNewPassword(provider({ breached: { fetch } }), scoring(4).strength, PASSWORD, EMAIL, telemetry))
      expect(refused.code).toBe("PasswordBreached")
      expect(wrapped).toEqual([{ base: fetch, purpose: "breached", calls: 1 }])
    })

    it("without a configured fetch, the global one is wrapped", async () => {
      const { telemetry, wrapped } = traced(true)
      const original = globalThis.fetch
      const global = listing(5)
      globalThis.fetch = global
      try {
        await refusal(checkNewPassword(provider({ breached: {} }), scoring(4).strength, PASSWORD, EMAIL, telemetry))
      } finally {
        globalThis.fetch = original
      }
      expect(wrapped.map((w) => w.base)).toEqual([global])
    })

    it("not traced: nothing is wrapped", async () => {
      const { telemetry, wrapped } = traced(false)
      await refusal(checkNewPassword(provider({ breached: { fetch: listing(5) } }), scoring(4).strength, PASSWORD, EMAIL, telemetry))
      expect(wrapped).toEqual([])
    })
  })
})

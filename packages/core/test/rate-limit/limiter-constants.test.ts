/**
 * The limiter's fixed numbers and names: the default windows, the mail counters' prefixes and
 * how long a lockout's strikes are remembered. Every instance and version sharing a store
 * must agree on them, and docs/rate-limiting.md documents them.
 *
 * They are constants computed when the limiter's module loads, so each test loads the
 * modules anew (`vi.resetModules()`, then `import()`) and reads what the module computes now.
 * That is also what lets mutation testing reach them: it switches a mutant on per test,
 * after a file's own static imports ran. Nothing here is imported statically for the same
 * reason (a fresh copy of core next to a static one would mix two module graphs).
 */
import { createHmac } from "node:crypto"
import { describe, expect, it, vi } from "vitest"

const SECRET = "a-test-secret-of-at-least-32-characters-long"
const digest = (identifier: string) => createHmac("sha256", `portcullis rate limit\u0000${SECRET}`).update(identifier).digest("hex").slice(0, 32)

async function fresh() {
  vi.resetModules()
  const [limiter, config, support] = await Promise.all([
    import("../../src/lib/rate-limit/limiter.js"),
    import("../../src/lib/config/resolve.js"),
    import("./support.js"),
  ])
  return { ...limiter, resolve: config.resolve, ...support }
}

describe("the default windows", () => {
  it("are docs/rate-limiting.md's, per address and per identifier, and the two-factor cap per user", async () => {
    const { RATE_LIMIT_DEFAULTS, TWO_FACTOR_PER_USER } = await fresh()
    expect(RATE_LIMIT_DEFAULTS.perAddress).toEqual({
      credentials: { max: 100, window: 900 },
      email: { max: 10, window: 3600 },
      webauthn: { max: 60, window: 900 },
      webauthnOptions: { max: 120, window: 900 },
      oauth: { max: 120, window: 900 },
      sessionUpdate: { max: 600, window: 900 },
      twoFactor: { max: 30, window: 900 },
    })
    expect(RATE_LIMIT_DEFAULTS.perIdentifier).toEqual({ credentials: { max: 5, window: 900, maxLockout: 3600 }, email: { max: 5, window: 3600 } })
    expect(TWO_FACTOR_PER_USER).toEqual({ max: 10, window: 900 })
  })
})

describe("the mail counters", () => {
  it("are `email:i:` (sign-in links) and `email:password:` (the password provider's links), each keyed by the mailbox's HMAC", async () => {
    const { resolve, controllableStore } = await fresh()
    const control = controllableStore()
    const limiter = resolve({ secret: SECRET, providers: [], rateLimit: { store: control.store } }, {}).rateLimit!
    await limiter.checkEmail("Victim+news@Example.com", "198.51.100.7", "signIn")
    await limiter.checkEmail("victim@example.com", "198.51.100.7", "password")
    expect([...control.keys].sort()).toEqual([`email:i:${digest("victim@example.com")}`, `email:password:${digest("victim@example.com")}`])
  })
})

describe("a lockout's strikes", () => {
  it("are remembered for a day, and the second lockout is twice the window", async () => {
    const { controllableStore, lockoutApp, attempt, wrong } = await fresh()
    const control = controllableStore()
    const windows = new Map<string, number>()
    const hit = control.store.hit
    control.store.hit = (key, window, points) => (windows.set(key.split(":").slice(0, 2).join(":"), window), hit(key, window, points))
    const { browser } = lockoutApp({ store: control.store, perAddress: { credentials: false } })
    const b = browser()
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    await control.expire("credentials:i:")
    for (let i = 0; i < 6; i++) await attempt(b, wrong)
    expect(Object.fromEntries(windows)).toEqual({ "credentials:i": 900, "credentials:strikes": 24 * 60 * 60, "credentials:lock": 1800 })
  })
})

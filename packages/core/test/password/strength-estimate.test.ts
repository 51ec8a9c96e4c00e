/**
 * The password strength estimate (`lib/password-flows/strength.ts`): zxcvbn with the common
 * dictionary, the address as known words, the first 256 characters estimated, and an
 * estimator that failed to load tried again on the next check rather than failing every
 * check after it.
 *
 * The estimator is loaded by a dynamic import; to make that import fail once, `@zxcvbn-ts/core`
 * is mocked with `vi.doMock` and the module loaded anew, so nothing of core is imported
 * statically here.
 */
import { afterEach, describe, expect, it, vi } from "vitest"

afterEach(() => {
  vi.doUnmock("@zxcvbn-ts/core")
  vi.resetModules()
})

async function fresh() {
  vi.resetModules()
  const { PasswordStrength } = await import("../../src/lib/password-flows/strength.js")
  // The estimator's module (imported by the password kind in an app) builds zxcvbn.
  const { buildEstimator } = await import("../../src/lib/password-flows/estimator.js")
  return new PasswordStrength(buildEstimator)
}

describe("the estimate", () => {
  it("knows the common dictionary: a common password scores 0, a long passphrase 4", async () => {
    const strength = await fresh()
    expect(await strength.score("password1", [])).toBe(0)
    expect(await strength.score("violet tractor sandwich orbit", [])).toBe(4)
  })

  it("counts the address given as known words", async () => {
    const strength = await fresh()
    const password = "grace.hopper.1906"
    const unknown = await strength.score(password, [])
    expect(await strength.score(password, ["grace.hopper.1906@example.com", "grace.hopper.1906"])).toBeLessThan(unknown)
  })

  it("estimates the first 256 characters: what follows them changes nothing", async () => {
    const strength = await fresh()
    const weak = "a".repeat(256)
    expect(await strength.score(`${weak}${"x7#Qp!9zR$2m".repeat(20)}`, [])).toBe(await strength.score(weak, []))
  })
})

describe("an estimator that fails to load", () => {
  it("fails that check, and is loaded again for the next one", async () => {
    let loads = 0
    vi.doMock("@zxcvbn-ts/core", async (importOriginal) => {
      loads++
      if (loads === 1) throw new Error("the estimator's chunk failed to load")
      return importOriginal()
    })
    const strength = await fresh()
    await expect(strength.score("violet tractor sandwich orbit", [])).rejects.toThrow()
    expect(await strength.score("violet tractor sandwich orbit", [])).toBe(4)
    expect(loads).toBe(2)
  })

  it("once loaded, is built once: later checks reuse it", async () => {
    let loads = 0
    vi.doMock("@zxcvbn-ts/core", async (importOriginal) => {
      loads++
      return importOriginal()
    })
    const strength = await fresh()
    await strength.score("first check", [])
    await strength.score("second check", [])
    expect(loads).toBe(1)
  })
})

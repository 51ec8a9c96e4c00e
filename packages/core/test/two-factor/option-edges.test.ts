/**
 * The `twoFactor` option at its edges (issue 36): what turns the step off (and that it is
 * then really off), which adapter methods it names when they lack, and the exact limits of
 * `issuer` and `rememberDevice`. options.test.ts has the documented shapes.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { startTwoFactor } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, credentialsConfig, direct } from "../helpers.js"
import { steppedUp } from "../step-up/support.js"
import { ADA_ID, enroll, firstFactor, twoFactorApp } from "./support.js"

/** The configuration error the log names for `twoFactor` (with `extra`), or `undefined` when the configuration works. */
async function configError(twoFactor: unknown, extra: Partial<AuthConfig> = {}): Promise<string | undefined> {
  const log = captureLogger()
  const config = credentialsConfig({ adapter: MemoryAdapter(), session: { strategy: "jwt" }, twoFactor: twoFactor as AuthConfig["twoFactor"], logger: log.logger, ...extra })
  const response = await direct(config)(new Request("http://localhost:3000/auth/session"))
  return response.status === 500 ? log.lines.join("\n") : undefined
}

describe("turning the step off", () => {
  it("takes null as no two-factor option", async () => {
    expect(await configError(null)).toBeUndefined()
  })

  it("lets an enrolled user sign in with one factor under enabled: false, and refuses enrollment", async () => {
    const adapter = MemoryAdapter()
    const on = twoFactorApp({}, adapter)
    await enroll(on.config)
    expect((await firstFactor(on.browser())).headers.get("location")).toBe("http://localhost:3000/auth/two-factor")

    const off = twoFactorApp({ twoFactor: { enabled: false } }, adapter)
    expect((await firstFactor(off.browser())).headers.get("location")).toBe("http://localhost:3000")
    const request = { ...(await steppedUp(off.config, ADA_ID)), account: "ada@example.com" }
    await expect(startTwoFactor(request, off.config)).rejects.toMatchObject({ type: "InvalidConfig" })
  })

  it("keeps the step on with enabled: true", async () => {
    const { config, browser } = twoFactorApp({ twoFactor: { enabled: true } })
    await enroll(config)
    expect((await firstFactor(browser())).headers.get("location")).toBe("http://localhost:3000/auth/two-factor")
  })
})

describe("an adapter without the two-factor capability", () => {
  it("is refused, naming exactly the methods it lacks", async () => {
    const adapter: Adapter = MemoryAdapter()
    delete adapter.useTwoFactorStep
    delete adapter.useVerificationToken
    const error = await configError({}, { adapter })
    expect(error).toContain("The adapter lacks methods twoFactor needs: useTwoFactorStep, useVerificationToken")
  })

  it("is refused when a method is there but not a function", async () => {
    const adapter = { ...MemoryAdapter(), deleteTwoFactor: "yes" } as unknown as Adapter
    expect(await configError({}, { adapter })).toContain("lacks methods twoFactor needs: deleteTwoFactor")
  })
})

describe("the limits of issuer and rememberDevice", () => {
  it("accepts an issuer of 200 characters and refuses one of 201", async () => {
    expect(await configError({ issuer: "x".repeat(200) })).toBeUndefined()
    expect(await configError({ issuer: "x".repeat(201) })).toContain("twoFactor.issuer")
  })

  it("refuses an issuer of spaces only, or that is no string", async () => {
    expect(await configError({ issuer: "   " })).toContain("twoFactor.issuer")
    expect(await configError({ issuer: 42 })).toContain("twoFactor.issuer")
  })

  it("refuses a rememberDevice that is no number, or not finite", async () => {
    expect(await configError({ rememberDevice: "3600" })).toContain("twoFactor.rememberDevice")
    expect(await configError({ rememberDevice: Number.POSITIVE_INFINITY })).toContain("twoFactor.rememberDevice")
  })

  it("accepts 400 days and one second less, and refuses one second more", async () => {
    const days400 = 400 * 24 * 60 * 60
    expect(await configError({ rememberDevice: days400 - 1 })).toBeUndefined()
    expect(await configError({ rememberDevice: days400 + 1 })).toContain("twoFactor.rememberDevice")
  })
})

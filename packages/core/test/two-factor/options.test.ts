/**
 * The `twoFactor` option: checked once, a bad value is a configuration error (every request
 * answers it, the log names the option), never a half-working second step.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, credentialsConfig, direct } from "../helpers.js"

async function configError(twoFactor: unknown, extra: Partial<AuthConfig> = {}): Promise<string | undefined> {
  const log = captureLogger()
  const config = credentialsConfig({ adapter: MemoryAdapter(), session: { strategy: "jwt" }, twoFactor: twoFactor as AuthConfig["twoFactor"], logger: log.logger, ...extra })
  const response = await direct(config)(new Request("http://localhost:3000/auth/session"))
  return response.status === 500 ? log.lines.join("\n") : undefined
}

describe("the twoFactor option", () => {
  it("accepts the documented shapes", async () => {
    for (const ok of [{}, { enabled: true }, { enabled: false }, { issuer: "Example Inc", rememberDevice: 0 }, { rememberDevice: 400 * 24 * 60 * 60 }, { passkeySkips: false }]) {
      expect(await configError(ok), JSON.stringify(ok)).toBeUndefined()
    }
  })

  it("refuses values outside them, naming the option", async () => {
    const cases: [unknown, string][] = [
      ["yes", "twoFactor must be an object"],
      [{ issuer: "" }, "twoFactor.issuer"],
      [{ issuer: "Acme:Corp" }, "twoFactor.issuer"],
      [{ rememberDevice: -1 }, "twoFactor.rememberDevice"],
      [{ rememberDevice: 1.5 }, "twoFactor.rememberDevice"],
      [{ rememberDevice: 401 * 24 * 60 * 60 }, "twoFactor.rememberDevice"],
      [{ passkeySkips: "no" }, "twoFactor.passkeySkips"],
    ]
    for (const [value, message] of cases) expect(await configError(value), JSON.stringify(value)).toContain(message)
  })

  it("needs an adapter", async () => {
    expect(await configError({}, { adapter: undefined })).toContain("twoFactor needs an adapter")
  })
})

/**
 * The TOTP secret at rest (issue 36): sealed under the configuration's secret with its own
 * salt, readable for as long as an account can live, and nothing but a sealed secret opens as
 * one. enrollment.test.ts checks that the stored value is a JWE and not the secret.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { runtimeFor } from "@portcullis/core/integration"
import { encode } from "@portcullis/core/jwt"
import { SECRET } from "../helpers.js"
import { openSecret, sealSecret } from "../../src/lib/two-factor/secret.js"
import { twoFactorApp } from "./support.js"

const SALT = "portcullis.two-factor-secret"
const YEAR = 365 * 24 * 60 * 60 * 1000
const TOTP_SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"

afterEach(() => {
  vi.useRealTimers()
})

const resolved = () => runtimeFor(twoFactorApp().config).config

describe("a sealed secret", () => {
  it("opens again fifty years later: an enrollment does not expire", async () => {
    // The lifetime is a constant computed when the module loads: loaded anew here, so the
    // test reads what the module computes now (and mutation testing, which switches a
    // mutant on per test after the file's imports ran, reaches it).
    vi.resetModules()
    const { sealSecret, openSecret } = await import("../../src/lib/two-factor/secret.js")
    const config = resolved()
    const sealed = await sealSecret(config, TOTP_SECRET)
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 50 * YEAR })
    expect(await openSecret(config, sealed)).toBe(TOTP_SECRET)
  })

  it("does not open under another configuration's secret", async () => {
    const sealed = await sealSecret(resolved(), TOTP_SECRET)
    const other = runtimeFor(twoFactorApp({ secret: "another-secret-with-at-least-32-characters!" }).config).config
    expect(await openSecret(other, sealed)).toBeNull()
  })
})

describe("a value that is not a sealed secret", () => {
  it("opens as none when sealed under the right key but carrying no string secret", async () => {
    const config = resolved()
    for (const token of [{ totp: 123456 }, { totp: null }, {}]) {
      const sealed = await encode({ token, secret: SECRET, salt: SALT, maxAge: 60 })
      expect(await openSecret(config, sealed), JSON.stringify(token)).toBeNull()
    }
  })

  it("opens as none when it is no JWE at all", async () => {
    expect(await openSecret(resolved(), "not-a-jwe")).toBeNull()
  })
})

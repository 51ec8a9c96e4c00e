/**
 * Issue 30: the password code (Argon2 through hash-wasm, the zxcvbn estimator and its
 * dictionaries) comes with the `Password()` provider function, as WebAuthn's comes with
 * `WebAuthn()`, so an app without the provider does not ship it (lib/kinds/provided.ts).
 */
import { describe, expect, it } from "vitest"
import { Auth } from "@portcullis/core"
import Password from "@portcullis/core/providers/password"
import type { PasswordConfig } from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, SECRET } from "../helpers.js"

const session = (provider: PasswordConfig, logger = captureLogger().logger) =>
  Auth(new Request("http://localhost:3000/auth/session"), { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), providers: [provider], logger })

describe("a password provider", () => {
  it("made by Password() answers, also when copied into a new object", async () => {
    expect((await session(Password())).status).toBe(200)
    expect((await session({ ...Password(), name: "Mot de passe" })).status).toBe(200)
  })

  it("written out by hand is a configuration error that names Password()", async () => {
    const { lines, logger } = captureLogger()
    const { id, name, type, emailVerification, options } = Password()
    const response = await session({ id, name, type, emailVerification, options }, logger)
    expect(response.status).toBe(500)
    expect(lines.join("\n")).toMatch(/InvalidConfig.*Password\(\) from @portcullis\/core\/providers\/password/)
  })
})

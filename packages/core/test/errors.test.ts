import { describe, expect, it } from "vitest"
import * as ours from "@portcullis/core/errors"
import * as authjs from "@auth/core/errors"

/**
 * Every error class Auth.js v5 exports exists here under the same name, with the same
 * `type` and `kind`, so `instanceof` checks and `switch (error.type)` survive a migration.
 */
describe("error classes match Auth.js v5", () => {
  const theirClasses = Object.entries(authjs).filter(
    ([, value]) => typeof value === "function" && (value === authjs.AuthError || value.prototype instanceof authjs.AuthError),
  ) as [string, typeof authjs.AuthError][]

  it("Auth.js exports a sizeable list to compare against", () => {
    expect(theirClasses.length).toBeGreaterThan(25)
  })

  it.each(theirClasses)("%s", (name, Theirs) => {
    const Ours = (ours as Record<string, unknown>)[name] as typeof ours.AuthError | undefined
    expect(Ours, `@portcullis/core/errors must export ${name}`).toBeTypeOf("function")
    const a = new Ours!("x")
    const b = new Theirs("x")
    expect(a).toBeInstanceOf(ours.AuthError)
    expect(a.type).toBe(b.type)
    expect(a.kind).toBe((b as { kind?: string }).kind)
    expect(a.name).toBe(name)
  })

  it("the spec's MissingSecretError is MissingSecret", () => {
    expect(ours.MissingSecretError).toBe(ours.MissingSecret)
  })

  it("only client-safe errors are named to the client", () => {
    expect(ours.isClientError(new ours.CredentialsSignin())).toBe(true)
    expect(ours.isClientError(new ours.AccessDenied())).toBe(true)
    expect(ours.isClientError(new ours.AdapterError())).toBe(false)
    expect(ours.isClientError(new Error("x"))).toBe(false)
  })
})

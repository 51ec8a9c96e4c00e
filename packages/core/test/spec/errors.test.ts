/**
 * Spec §7.1.4: a `CredentialsSignin` thrown in `authorize` — an expected refusal, answered
 * with `?error=CredentialsSignin&code=…` — is still logged on the server with its message,
 * while the URL carries only the code. Deviation (issue 29, docs/migration.md): it is a
 * client-caused refusal, so it reaches `logger.warn` as `credentials-refused` — rate-limited,
 * without a stack — instead of `logger.error` once per wrong password.
 */
import { describe, expect, it } from "vitest"
import { CredentialsSignin } from "@portcullis/core/errors"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, credentialsConfig, direct } from "../helpers.js"

class LockedAccount extends CredentialsSignin {
  override code = "locked"
}

describe("a CredentialsSignin from authorize is logged on the server (§7.1.4)", () => {
  it("reaches logger.warn as credentials-refused, with its message and code, while the URL says only the code", async () => {
    const errors: Error[] = []
    const warnings: [string, Record<string, unknown> | undefined][] = []
    const config = credentialsConfig({
      logger: { error: (e) => void errors.push(e), warn: (code, details) => void warnings.push([code, details]), debug: () => {} },
      providers: [
        Credentials({
          credentials: { username: {} },
          authorize: () => {
            throw new LockedAccount("account ada is locked after 5 failures")
          },
        }),
      ],
    })
    const response = await new Browser(direct(config)).signIn({ username: "ada" })
    const location = new URL(response.headers.get("location")!)
    expect(Object.fromEntries(location.searchParams)).toEqual({ error: "CredentialsSignin", code: "locked" })
    expect(location.href).not.toContain("locked after")

    expect(errors).toEqual([])
    expect(warnings).toHaveLength(1)
    const [code, details] = warnings[0]!
    expect(code).toBe("credentials-refused")
    expect(details).toMatchObject({ kind: "CredentialsSignin", code: "locked" })
    expect(details!.message).toContain("account ada is locked after 5 failures")
    expect(JSON.stringify(details)).not.toContain("    at ")
  })
})

/**
 * Spec §7.1.4: a `CredentialsSignin` thrown in `authorize` — an expected refusal, answered
 * with `?error=CredentialsSignin&code=…` — is still logged in full on the server, through
 * the logger's `error` method, while the URL carries only the code.
 */
import { describe, expect, it } from "vitest"
import { CredentialsSignin } from "@portcullis/core/errors"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, credentialsConfig, direct } from "../helpers.js"

class LockedAccount extends CredentialsSignin {
  override code = "locked"
}

describe("a CredentialsSignin from authorize is logged on the server (§7.1.4)", () => {
  it("reaches logger.error as the error itself, with its message, while the URL says only the code", async () => {
    const errors: Error[] = []
    const config = credentialsConfig({
      logger: { error: (e) => void errors.push(e), warn: () => {}, debug: () => {} },
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

    expect(errors).toHaveLength(1)
    expect(errors[0]).toBeInstanceOf(LockedAccount)
    expect(errors[0]!.message).toContain("account ada is locked after 5 failures")
    expect((errors[0] as CredentialsSignin).type).toBe("CredentialsSignin")
  })
})

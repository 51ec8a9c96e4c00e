import { describe, expect, it } from "vitest"
import { isReservedIdentifier, passwordTokenIdentifier, twoFactorChallengeIdentifier, webauthnChallengeIdentifier } from "../../src/lib/verification-identifiers.js"
import { emailChangeIdentifier } from "../../src/lib/extensions/account/email.js"

/**
 * Which identifiers the magic-link callback refuses (`lib/verification-identifiers.ts`): the
 * other namespaces of the verification-token table, by their prefix — and only by their
 * prefix, since a link Auth.js mailed before a migration may name any address, one whose
 * quoted local part happens to spell a namespace included.
 */
describe("a reserved identifier", () => {
  it("is every namespace's own, whatever follows its prefix", () => {
    for (const identifier of [
      passwordTokenIdentifier("verify", "ada@example.com"),
      passwordTokenIdentifier("reset", "ada@example.com"),
      webauthnChallengeIdentifier("passkey"),
      twoFactorChallengeIdentifier("user-1"),
      // The account center's email-change links (issue 32): never a sign-in link.
      emailChangeIdentifier("user-1", "ada@example.com"),
    ]) {
      expect(isReservedIdentifier(identifier)).toBe(true)
    }
  })

  it.each([`"password-reset:ada"@example.com`, "ada.password-verify:@example.com", `"email-change:x"@example.com`])(
    "is not %j: a namespace's name anywhere but at the start is an address like any other",
    (address) => {
      expect(isReservedIdentifier(address)).toBe(false)
    },
  )
})

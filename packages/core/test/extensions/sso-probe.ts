/**
 * The SSO-like extension the `req.signIn` tests configure (in-process and in the instance
 * processes of `sign-in-instance.ts`): its ACS takes the identity as JSON — the test plays
 * the IdP that verified it — and signs it in; `me` answers the session as it sees it.
 */
import { defineExtension, type ExtensionIdentity, type ExtensionSignInOutcome } from "@portcullis/core/extension"

export const SSO_PROVIDER = "sso:acme"

/** An identity the IdP of acme asserted, vouched for unless told otherwise. */
export function identity(extra: Partial<ExtensionIdentity> = {}): ExtensionIdentity {
  return { provider: SSO_PROVIDER, providerAccountId: "nameid-ada", type: "saml", email: "ada@acme.com", emailVerified: true, name: "Ada", profile: { department: "R&D" }, ...extra }
}

/**
 * A fresh extension; each sign-in's outcome is pushed to `outcomes`.
 *
 * @example
 * ```ts
 * const outcomes: ExtensionSignInOutcome[] = []
 * const config = credentialsConfig({ adapter, extensions: [ssoExtension(outcomes)] })
 * ```
 */
export function ssoExtension(outcomes: ExtensionSignInOutcome[] = []) {
  return defineExtension({
    id: "sso",
    routes: [
      {
        method: "POST",
        path: "acs",
        access: "anyone",
        from: "anywhere",
        async handler(req) {
          const outcome = await req.signIn(req.body as unknown as ExtensionIdentity)
          outcomes.push(outcome)
          return outcome.response
        },
      },
      { method: "GET", path: "me", handler: async (req) => ({ json: { ...(await req.requireSession()) } }) },
    ],
  })
}

/**
 * BankID Norge (Norwegian BankID) sign-in, OpenID Connect.
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/**
 * BankID OIDC claims (https://confluence.bankidnorge.no/confluence/pdoidcl): the ID token
 * and, with `idToken: false` as here, the (signed) userinfo answer.
 */
export interface BankIDNorwayProfile {
  /** Pairwise, stable per merchant: the user's id. */
  sub: string
  iss: string
  aud: string
  exp?: number
  iat?: number
  auth_time?: number
  name: string
  given_name: string
  family_name: string
  /** `YYYY-MM-DD`. */
  birthdate: string
  updated_at?: number
  /** Identity option and level of assurance, e.g. `urn:bankid:bid;LOA=4`. */
  acr?: string
  /** `BID` (BankID with code device), `BIM` (mobile), `BIS` (BankID app/biometrics). */
  amr?: "BID" | "BIM" | "BIS" | string
  /** Serial number of the user's BankID certificate. */
  bankid_altsub?: string
  /** Norwegian national identity number, with the `nnin` scope. */
  nnin_altsub?: string
  /** Only from userinfo, with the `email` scope. */
  email?: string
  /** Only from userinfo, with the `phone` scope. */
  phone_number?: string
  [key: string]: unknown
}

/**
 * Sign in with BankID Norge.
 *
 * - Env: `AUTH_BANKID_NO_ID`, `AUTH_BANKID_NO_SECRET`.
 * - Redirect URI registered with BankID (through your merchant agreement):
 *   `[origin]/auth/callback/bankid-no`.
 * - Issuer `https://auth.bankid.no/auth/realms/prod`; for BankID's test environment pass
 *   `issuer: "https://auth.current.bankid.no/auth/realms/current"`.
 * - As Auth.js: `client_secret_post`, `ui_locales=no`, `login_hint=BIS` (the BankID app),
 *   and the profile read from the userinfo endpoint (`idToken: false`), because the email
 *   is only given there; userinfo answers are signed (`userinfo_signed_response_alg: RS256`).
 *   The userinfo `sub` must equal the ID token's. BankID users have no picture.
 *
 * @example
 * ```ts
 * import BankIDNorge from "@portcullis/core/providers/bankid-no"
 * Auth(request, { providers: [BankIDNorge()] })
 * ```
 */
export default function BankIDNorge(options: OAuthUserConfig<BankIDNorwayProfile> = {}): OAuthConfig<BankIDNorwayProfile> {
  return {
    id: "bankid-no",
    name: "BankID Norge",
    type: "oidc",
    issuer: "https://auth.bankid.no/auth/realms/prod",
    client: { token_endpoint_auth_method: "client_secret_post", userinfo_signed_response_alg: "RS256" },
    idToken: false,
    authorization: { params: { ui_locales: "no", login_hint: "BIS" } },
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#39134c", text: "#fff" },
    options,
  }
}

/**
 * Osso (open-source SAML SSO exposed as OAuth 2) sign-in.
 * @module
 */
import { processEnv } from "../lib/config/env.js"
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** `GET /oauth/me` of an Osso instance (https://ossoapp.com/docs/reference/oauth). */
export interface OssoProfile {
  /** The Osso user id (a UUID). */
  id: string
  /** The email from the SAML assertion. */
  email: string
  /** The id of the user at the customer's identity provider. */
  idp?: string
  /** What the sign-in asked for (`domain` / `email`). */
  requested?: { domain?: string; email?: string }
  [key: string]: unknown
}

/**
 * Sign in with Osso: your customers' SAML identity providers, through your Osso instance.
 *
 * - Env: `AUTH_OSSO_ID`, `AUTH_OSSO_SECRET`, `AUTH_OSSO_ISSUER`.
 * - **Required** `issuer`: your Osso instance, e.g. `https://osso.example.com/`; the preset
 *   uses its `/oauth/authorize`, `/oauth/token` and `/oauth/me`. Osso publishes no discovery
 *   document, so the endpoints are built when the preset is: pass `issuer` in code or set
 *   `AUTH_OSSO_ISSUER` in `process.env`.
 * - Redirect URI of the OAuth client in Osso: `[origin]/auth/callback/osso`.
 * - Osso picks the customer's identity provider from a `domain` or `email` authorization
 *   parameter: `signIn("osso", {}, { domain: "acme.com" })`.
 * - Osso's SAML users have no name or picture.
 *
 * @example
 * ```ts
 * import Osso from "@portcullis/core/providers/osso"
 * Osso({ issuer: "https://osso.example.com/" })
 * ```
 */
export default function Osso(options: OAuthUserConfig<OssoProfile> = {}): OAuthConfig<OssoProfile> {
  const issuer = options.issuer ?? processEnv().AUTH_OSSO_ISSUER
  const base = issuer?.replace(/\/+$/, "")
  return {
    id: "osso",
    name: "Osso",
    type: "oauth",
    // Without an issuer there are no endpoints: the core then reports the missing issuer.
    ...(base && { authorization: `${base}/oauth/authorize`, token: `${base}/oauth/token`, userinfo: `${base}/oauth/me` }),
    profile(profile) {
      return { id: profile.id, name: null, email: profile.email ?? null, image: null }
    },
    style: { bg: "#fff", text: "#000" },
    options,
  }
}

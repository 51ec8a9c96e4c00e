/**
 * "Sign in with Slack" (OpenID Connect).
 * @module
 */
import type { OAuthConfig, OAuthUserConfig } from "./oauth.js"

/** Slack ID token claims (https://docs.slack.dev/authentication/sign-in-with-slack/). */
export interface SlackProfile {
  iss: string
  /** The Slack user id (`U…`). */
  sub: string
  aud: string
  "https://slack.com/user_id": string
  "https://slack.com/team_id": string
  "https://slack.com/team_name"?: string
  "https://slack.com/team_domain"?: string
  "https://slack.com/user_image_512"?: string
  email?: string
  email_verified?: boolean
  name?: string
  given_name?: string
  family_name?: string
  picture?: string
  locale?: string
  [key: string]: unknown
}

/**
 * Sign in with Slack.
 *
 * - Env: `AUTH_SLACK_ID`, `AUTH_SLACK_SECRET`.
 * - Redirect URL (OAuth & Permissions): `[origin]/auth/callback/slack`. Slack requires https.
 * - Scopes `openid profile email` (the core's OIDC default); endpoints from discovery at
 *   `https://slack.com`.
 *
 * @example
 * ```ts
 * import Slack from "@portcullis/core/providers/slack"
 * Auth(request, { providers: [Slack()] })
 * ```
 */
export default function Slack(options: OAuthUserConfig<SlackProfile> = {}): OAuthConfig<SlackProfile> {
  return {
    id: "slack",
    name: "Slack",
    type: "oidc",
    issuer: "https://slack.com",
    profile(profile) {
      return { id: profile.sub, name: profile.name ?? null, email: profile.email ?? null, image: profile.picture ?? null }
    },
    style: { bg: "#4A154B", text: "#fff" },
    options,
  }
}

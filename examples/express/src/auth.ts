import type { Adapter } from "@portcullis/core/adapters"
import Email from "@portcullis/core/providers/email"
import Passkey from "@portcullis/core/providers/passkey"
import Password from "@portcullis/core/providers/password"
import type { ExpressAuthConfig } from "@portcullis/express"
import { demoCredentials, demoOidc, type DemoOidcClient } from "@portcullis/example-kit"

/** What the demo runs beside itself: a local OpenID provider and a mail catcher. */
export interface DemoPeers {
  oidc?: DemoOidcClient
  /** `smtp://127.0.0.1:<port>` of the demo mail catcher (`@portcullis/example-kit/smtp`). */
  smtpUrl?: string
}

export function authConfig(secret: string, adapter?: Adapter, peers: DemoPeers = {}): ExpressAuthConfig {
  const { oidc, smtpUrl } = peers
  return {
    secret,
    // With an adapter, sessions are database rows (the cookie holds only a random token).
    adapter,
    // No trustHost: the demo knows its own URL (AUTH_URL, set by server.ts), so no Host
    // header — forged or not — ever decides where a sign-in link or redirect points.
    providers: [
      ...demoOidc(oidc ?? {}),
      // Magic links need the adapter (tokens are stored hashed); the demo's mail catcher prints them.
      ...(adapter && smtpUrl ? [Email({ server: smtpUrl, from: "Portcullis demo <demo@portcullis.dev>", maxAge: 10 * 60 })] : []),
      // Passkeys need the adapter too (authenticators are stored). Autofill (conditional UI)
      // is off so the button is the one way in, which keeps the demo easy to follow.
      ...(adapter ? [Passkey({ enableConditionalUI: false })] : []),
      // Password accounts: sign up, verify by the mailed link (the mail catcher prints it),
      // forgot/reset. Hashes live in their own table (`passwords: true` on the SQL adapter).
      ...(adapter && smtpUrl ? [Password({ emailVerification: "required" })] : []),
      demoCredentials(),
    ],
    // Two-factor: users who turn it on (page /two-factor) enter a TOTP code or a backup code
    // after any first factor; a passkey counts as strong enough on its own.
    ...(adapter && { twoFactor: { enabled: true, issuer: "Portcullis demo" } }),
    experimental: { enableWebAuthn: !!adapter },
    // Session management ("Your sessions"): rows remember when and from where they began
    // (the columns `portcullis migrate` adds), and no session outlives a week however
    // active it stays (T42).
    ...(adapter && { session: { metadata: true, absoluteMaxAge: 7 * 24 * 3600 } }),
    // The user's id in the session, for the demo's pages (the 2FA and session calls read the user from the session themselves).
    callbacks: { session: ({ session, user }) => ({ ...session, user: { ...session.user, id: user?.id ?? session.user?.id } }) },
    theme: { brandColor: "#4f46e5", colorScheme: "auto" },
  }
}

import type { Adapter } from "@portcullis/core/adapters"
import Email from "@portcullis/core/providers/email"
import Passkey from "@portcullis/core/providers/passkey"
import Password from "@portcullis/core/providers/password"
import type { ExpressAuthConfig } from "@portcullis/express"
import { account } from "@portcullis/account"
import { organizations, type OrganizationStore } from "@portcullis/organizations"
import { admin, type BanStore, type ImpersonationStore } from "@portcullis/admin"
import { demoCredentials, demoOidc, type DemoOidcClient } from "@portcullis/example-kit"

/** What the demo runs beside itself: a local OpenID provider and a mail catcher. */
export interface DemoPeers {
  oidc?: DemoOidcClient
  /** `smtp://127.0.0.1:<port>` of the demo mail catcher (`@portcullis/example-kit/smtp`). */
  smtpUrl?: string
}

/** The demo's peers, and the origins it is served at when AUTH_URL is not set. */
export interface DemoOptions extends DemoPeers {
  /** Exact origins to trust (server.ts: `http://localhost:<port>` and `http://127.0.0.1:<port>`). */
  trustedOrigins?: string[]
  /** Where the Team page's organizations live (server.ts: `sqlOrganizationStore(db)`); without it, no Team page. */
  organizations?: OrganizationStore
  /** Where the admin console's bans live (server.ts: `sqlBanStore(db)`); without it, no console. */
  bans?: BanStore
  /** Where the console's impersonations live (server.ts: `sqlImpersonationStore(db)`); without it, no impersonation. */
  impersonations?: ImpersonationStore
  /** Who may use the admin console (`ADMIN_EMAILS`); default the demo user's address. */
  adminEmails?: readonly string[]
}

// No return type: `satisfies` below keeps the extensions' types, so `extensions(req, config)`
// knows `organizations` and its functions (an annotation would forget them).
export function authConfig(secret: string, adapter?: Adapter, options: DemoOptions = {}) {
  const { oidc, smtpUrl, trustedOrigins } = options
  return {
    secret,
    // With an adapter, sessions are database rows (the cookie holds only a random token).
    adapter,
    // The demo knows its own URL (AUTH_URL) or its exact origins (localhost and 127.0.0.1 at
    // its port, from server.ts), so no other Host header — forged or not — ever decides where
    // a sign-in link or redirect points: such a request gets a 400. trustHost is off
    // explicitly: outside production it defaults to on, which would serve any Host.
    trustHost: false,
    ...(trustedOrigins && { trustedOrigins }),
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
    // Two-factor: users who turn it on (the account center, /auth/account) enter a TOTP code or a backup code
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
    // Organizations (the Team page, /team): teams with roles, invitations mailed through the
    // mail catcher, an active organization per session. Its accept page and JSON routes are
    // served under /auth/organizations by the handler above.
    // The account center (/auth/account): profile, email, linked accounts, passkeys,
    // password, two-factor and sessions, built in — the demo writes no settings pages.
    // The admin console (/auth/admin): users, bans, recovery, charts, for the addresses in
    // ADMIN_EMAILS (default demo@portcullis.dev: sign in with "Demo OIDC" to be that user).
    extensions: [
      ...(options.organizations ? [organizations({ store: options.organizations, invitations: { afterAccept: "/team" } })] : []),
      ...(adapter ? [account()] : []),
      ...(options.bans
        ? [
            admin({
              store: options.bans,
              isAdmin: (user) => typeof user.email === "string" && (options.adminEmails ?? ["demo@portcullis.dev"]).includes(user.email.toLowerCase()),
              // A user's page lists their organizations, read through the organizations store's public API.
              ...(options.organizations && { organizationsOf: organizationsOf(options.organizations) }),
              // Impersonation from a user's page: 30 minutes at most, landing on the account center.
              // The records are rows in the demo's database, as the bans are, so several
              // instances on one database would all show and end the same impersonation.
              ...(options.impersonations && { impersonation: { store: options.impersonations, landing: "/auth/account" } }),
            }),
          ]
        : []),
    ],
  } satisfies ExpressAuthConfig
}

/** A user's organizations as the admin console lists them. */
function organizationsOf(store: OrganizationStore) {
  return async (userId: string) => (await store.listOrganizations(userId)).map(({ organization, role }) => ({ id: organization.id, name: organization.name, role }))
}

/** The demo's configuration, with its extensions' types. */
export type DemoAuthConfig = ReturnType<typeof authConfig>

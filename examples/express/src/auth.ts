import { scryptSync, timingSafeEqual, randomBytes } from "node:crypto"
import type { Adapter } from "@portcullis/core/adapters"
import type { ExpressAuthConfig } from "@portcullis/express"
import Credentials from "@portcullis/core/providers/credentials"
import Email from "@portcullis/core/providers/email"
import Passkey from "@portcullis/core/providers/passkey"

/**
 * The demo's one password user. A real app keeps users in its database; the point here is
 * the shape of `authorize`: hash with a memory-hard function, compare in constant time, and
 * answer an unknown user and a wrong password the same way.
 */
export const demoUser = { username: "demo", password: "portcullis", id: "demo-user", name: "Demo User", email: "demo@portcullis.dev" }

const salt = randomBytes(16)
const scryptParams = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const storedHash = scryptSync(demoUser.password, salt, 32, scryptParams)
// Unknown users are checked against this too, so both cases take the same time.
const decoyHash = scryptSync("decoy", salt, 32, scryptParams)

function passwordMatches(password: string, hash: Buffer): boolean {
  if (password.length > 1024) return false
  return timingSafeEqual(scryptSync(password, salt, 32, scryptParams), hash)
}

/** The local OpenID provider the demo starts beside itself (see demo-oidc.ts). */
export interface DemoOidc {
  issuer: string
  clientId: string
  clientSecret: string
}

/** What the demo runs beside itself: a local OpenID provider and a mail catcher. */
export interface DemoPeers {
  oidc?: DemoOidc
  /** `smtp://127.0.0.1:<port>` of the demo mail catcher (demo-smtp.ts). */
  smtpUrl?: string
}

export function authConfig(secret: string, adapter?: Adapter, peers: DemoPeers = {}): ExpressAuthConfig {
  const { oidc, smtpUrl } = peers
  return {
    secret,
    // With an adapter, sessions are database rows (the cookie holds only a random token).
    adapter,
    trustHost: true,
    providers: [
      ...(oidc
        ? [
            {
              id: "demo-oidc",
              name: "Demo OIDC",
              type: "oidc" as const,
              issuer: oidc.issuer,
              clientId: oidc.clientId,
              clientSecret: oidc.clientSecret,
              // The demo provider serves plain http on loopback; real providers are https.
              allowInsecureLoopback: true,
              // Our own provider verifies the address (email_verified: true), so the OIDC
              // account may join the password user with the same email: the demo shows linking.
              allowDangerousEmailAccountLinking: true,
            },
          ]
        : []),
      // Magic links need the adapter (tokens are stored hashed); the demo's mail catcher prints them.
      ...(adapter && smtpUrl ? [Email({ server: smtpUrl, from: "Portcullis demo <demo@portcullis.dev>", maxAge: 10 * 60 })] : []),
      // Passkeys need the adapter too (authenticators are stored). Autofill (conditional UI)
      // is off so the button is the one way in, which keeps the demo easy to follow.
      ...(adapter ? [Passkey({ enableConditionalUI: false })] : []),
      Credentials({
        name: "Demo account",
        credentials: {
          username: { label: "Username", autocomplete: "username", required: true },
          password: { label: "Password", type: "password", autocomplete: "current-password", required: true },
        },
        async authorize({ username, password }) {
          const known = username === demoUser.username
          const ok = passwordMatches(String(password ?? ""), known ? storedHash : decoyHash)
          return known && ok ? { id: demoUser.id, name: demoUser.name, email: demoUser.email } : null
        },
      }),
    ],
    experimental: { enableWebAuthn: !!adapter },
    theme: { brandColor: "#4f46e5", colorScheme: "auto" },
  }
}

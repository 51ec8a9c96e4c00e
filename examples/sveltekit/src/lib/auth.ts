import { randomBytes } from "node:crypto"
import { SvelteKitAuth, type SvelteKitAuthConfig } from "@portcullis/sveltekit"
import Credentials from "@portcullis/core/providers/credentials"

/** The demo's one password user (compare examples/express/src/auth.ts for hashing). */
const demoUser = { username: "demo", password: "portcullis", id: "demo-user", name: "Demo User", email: "demo@portcullis.dev" }

const providers: SvelteKitAuthConfig["providers"] = [
  Credentials({
    name: "Demo account",
    credentials: {
      username: { label: "Username", autocomplete: "username", required: true },
      password: { label: "Password", type: "password", autocomplete: "current-password", required: true },
    },
    async authorize({ username, password }) {
      const ok = username === demoUser.username && password === demoUser.password
      return ok ? { id: demoUser.id, name: demoUser.name, email: demoUser.email } : null
    },
  }),
]

// The local demo OpenID provider (examples/express/src/demo-oidc.ts), when server.js or a test started one.
const issuer = process.env.DEMO_OIDC_ISSUER
if (issuer) {
  providers.push({
    id: "demo-oidc",
    name: "Demo OIDC",
    type: "oidc",
    issuer,
    clientId: process.env.DEMO_OIDC_CLIENT_ID ?? "demo-app",
    clientSecret: process.env.DEMO_OIDC_CLIENT_SECRET ?? "demo-app-secret",
    // The demo provider serves plain http on 127.0.0.1; never set this for a real provider.
    allowInsecureLoopback: true,
  } as SvelteKitAuthConfig["providers"][number])
}

if (!process.env.AUTH_SECRET) console.warn("AUTH_SECRET is not set: using a random secret, sessions end when the server stops")

export const { handle, signIn, signOut } = SvelteKitAuth({
  secret: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64url"),
  trustHost: true,
  providers,
  theme: { brandColor: "#ff3e00", colorScheme: "auto" },
})

/** Providers the home page offers buttons for. */
export const oidcEnabled = Boolean(issuer)

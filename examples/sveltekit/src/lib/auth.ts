import { randomBytes } from "node:crypto"
import { SvelteKitAuth, type SvelteKitAuthConfig } from "@portcullis/sveltekit"
import { demoCredentials, demoOidc } from "@portcullis/example-kit"

// The demo account, and the local OpenID provider when server.js or a test started one.
const issuer = process.env.DEMO_OIDC_ISSUER
const providers: SvelteKitAuthConfig["providers"] = [
  demoCredentials(),
  ...demoOidc({ issuer, clientId: process.env.DEMO_OIDC_CLIENT_ID ?? "demo-app", clientSecret: process.env.DEMO_OIDC_CLIENT_SECRET ?? "demo-app-secret" }),
]

if (!process.env.AUTH_SECRET) console.warn("AUTH_SECRET is not set: using a random secret, sessions end when the server stops")

export const { handle, signIn, signOut } = SvelteKitAuth({
  secret: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64url"),
  trustHost: true,
  providers,
  theme: { brandColor: "#ff3e00", colorScheme: "auto" },
})

/** Providers the home page offers buttons for. */
export const oidcEnabled = Boolean(issuer)

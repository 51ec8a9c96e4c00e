import { randomBytes } from "node:crypto"
import type { SolidAuthConfig } from "@portcullis/solid-start"
import { demoCredentials, demoOidc } from "@portcullis/example-kit"

// The demo account, and the local OpenID provider when server.js or a test started one.
const issuer = process.env.DEMO_OIDC_ISSUER
const providers: SolidAuthConfig["providers"] = [
  demoCredentials(),
  ...demoOidc({ issuer, clientId: process.env.DEMO_OIDC_CLIENT_ID ?? "demo-app", clientSecret: process.env.DEMO_OIDC_CLIENT_SECRET ?? "demo-app-secret" }),
]

if (!process.env.AUTH_SECRET) console.warn("AUTH_SECRET is not set: using a random secret, sessions end when the server stops")

export const authOptions: SolidAuthConfig = {
  // prefix defaults to /api/auth, matching src/routes/api/auth/[...solidauth].ts
  secret: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64url"),
  trustHost: true,
  providers,
  theme: { brandColor: "#2c4f7c", colorScheme: "auto" },
}

export const oidcEnabled = Boolean(issuer)

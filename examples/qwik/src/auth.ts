import type { QwikAuthConfig } from "@portcullis/qwik"
import { demoCredentials, demoOidc } from "@portcullis/example-kit"

if (!process.env.AUTH_SECRET) console.warn("AUTH_SECRET is not set: using a random secret, sessions end when the server stops")
// Web Crypto, not node:crypto: Qwik bundles this module for the browser too (it never runs there).
const secret = process.env.AUTH_SECRET ?? Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("")

/** Built once: the same object on every request lets core reuse its resolved configuration. */
let config: QwikAuthConfig | undefined

export function authConfig(): QwikAuthConfig {
  if (config) return config
  // The demo account, and the local OpenID provider when server.js or a test started one.
  const providers: QwikAuthConfig["providers"] = [
    demoCredentials(),
    ...demoOidc({
      issuer: process.env.DEMO_OIDC_ISSUER,
      clientId: process.env.DEMO_OIDC_CLIENT_ID ?? "demo-app",
      clientSecret: process.env.DEMO_OIDC_CLIENT_SECRET ?? "demo-app-secret",
    }),
  ]
  config = { secret, trustHost: true, providers, theme: { brandColor: "#ac7ef4", colorScheme: "auto" } }
  return config
}

import type { QwikAuthConfig } from "@portcullis/qwik"
import Credentials from "@portcullis/core/providers/credentials"

/** The demo's one password user (examples/express/src/auth.ts shows proper hashing). */
const demoUser = { username: "demo", password: "portcullis", id: "demo-user", name: "Demo User", email: "demo@portcullis.dev" }

if (!process.env.AUTH_SECRET) console.warn("AUTH_SECRET is not set: using a random secret, sessions end when the server stops")
// Web Crypto, not node:crypto: Qwik bundles this module for the browser too (it never runs there).
const secret = process.env.AUTH_SECRET ?? Array.from(crypto.getRandomValues(new Uint8Array(32)), (b) => b.toString(16).padStart(2, "0")).join("")

/** Built once: the same object on every request lets core reuse its resolved configuration. */
let config: QwikAuthConfig | undefined

export function authConfig(): QwikAuthConfig {
  if (config) return config
  const providers: QwikAuthConfig["providers"] = [
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
    } as QwikAuthConfig["providers"][number])
  }
  config = { secret, trustHost: true, providers, theme: { brandColor: "#ac7ef4", colorScheme: "auto" } }
  return config
}

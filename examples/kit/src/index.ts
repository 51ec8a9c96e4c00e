/**
 * What every example app shares, so each example shows only its framework's wiring: the
 * demo password account and the provider entry of the local OpenID provider. Server-only
 * pieces live in subpaths: `@portcullis/example-kit/oidc-server` (the OpenID provider
 * itself) and `@portcullis/example-kit/smtp` (the mail catcher).
 *
 * Everything here uses Web Crypto only, because some frameworks bundle auth config for the
 * browser too (where it never runs).
 * @module
 */
import Credentials, { type CredentialsConfig } from "@portcullis/core/providers/credentials"
import type { OIDCConfig } from "@portcullis/core/providers/oauth"

/** The demo's one password account. */
export const demoUser = { username: "demo", password: "portcullis", id: "demo-user", name: "Demo User", email: "demo@portcullis.dev" } as const

// PBKDF2-HMAC-SHA256 at OWASP's 600,000 iterations: the slow, salted hash a real app keeps.
const ITERATIONS = 600_000
const encoder = new TextEncoder()
const salt = crypto.getRandomValues(new Uint8Array(16))

async function hash(password: string): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(password), "PBKDF2", false, ["deriveBits"])
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations: ITERATIONS }, key, 256))
}

let stored: Promise<Uint8Array> | undefined
// Unknown users are checked against a decoy, so both cases cost the same time.
let decoy: Promise<Uint8Array> | undefined

function equal(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ (b[i] ?? 0)
  return diff === 0
}

/**
 * The credentials provider of the demo account. It shows the shape a real `authorize`
 * should have: a slow salted hash, a constant-time compare, the same answer (and work) for
 * an unknown user and a wrong password, and a cap on password length.
 */
export function demoCredentials(): CredentialsConfig {
  return Credentials({
    name: "Demo account",
    credentials: {
      username: { label: "Username", autocomplete: "username", required: true },
      password: { label: "Password", type: "password", autocomplete: "current-password", required: true },
    },
    async authorize({ username, password }) {
      const known = username === demoUser.username
      const expected = known ? (stored ??= hash(demoUser.password)) : (decoy ??= hash("decoy"))
      const given = String(password ?? "")
      const ok = given.length <= 1024 && equal(await hash(given), await expected)
      return known && ok ? { id: demoUser.id, name: demoUser.name, email: demoUser.email } : null
    },
  })
}

/** Where the local OpenID provider (`./oidc-server`) runs and the client the app uses there. */
export interface DemoOidcClient {
  issuer: string
  clientId: string
  clientSecret: string
}

/**
 * The provider entry for the local OpenID provider ("Sign in with Demo OIDC"), or nothing
 * when none runs (no issuer).
 */
export function demoOidc(client: Partial<DemoOidcClient>): OIDCConfig<Record<string, unknown>>[] {
  if (!client.issuer) return []
  return [
    {
      id: "demo-oidc",
      name: "Demo OIDC",
      type: "oidc",
      issuer: client.issuer,
      clientId: client.clientId,
      clientSecret: client.clientSecret,
      // The demo provider serves plain http on loopback; never set this for a real provider.
      allowInsecureLoopback: true,
      // It verifies addresses (email_verified: true), so its account may join the password
      // account with the same email: the demos show linking. With database sessions the
      // password sign-in stores an unverified user; the first OIDC sign-in verifies the
      // address and so replaces that user with a fresh verified one (T67), which later
      // password sign-ins find by email.
      allowDangerousEmailAccountLinking: true,
    },
  ]
}

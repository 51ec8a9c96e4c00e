/**
 * The configurations under test. Both libraries get the same secret, base path, host
 * trust, session lifetime and an equivalent Credentials provider; the only deliberate
 * difference is Portcullis's `updateAge: 0` in the "re-issue" target.
 *
 * Each config object is created once per server process and passed to every request,
 * which is how apps use them (and what lets Portcullis resolve it once).
 */
import type { AuthConfig as AuthjsConfig } from "@auth/core"
import type { Adapter as AuthjsAdapter } from "@auth/core/adapters"
import AuthjsCredentials from "@auth/core/providers/credentials"
import type { AuthConfig as PortcullisConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import Credentials from "@portcullis/core/providers/credentials"
import { BASE_PATH, BENCH_CREDENTIALS, BENCH_USER, OAUTH_ENV, OAUTH_PROVIDER_ID, SECRET } from "./shared.ts"

/**
 * The local OAuth 2.0 provider (`bench/provider.ts`) when the runner started one, in each
 * library's shape: the same endpoints, client and profile; state and PKCE checks.
 */
function localOAuth(library: "portcullis" | "authjs") {
  const url = process.env[OAUTH_ENV]
  if (!url) return []
  const profile = (p: Record<string, unknown>) => ({ id: String(p.id), name: String(p.name), email: String(p.email), image: null })
  return [{
    id: OAUTH_PROVIDER_ID,
    name: "Local",
    type: "oauth" as const,
    clientId: "bench-client",
    clientSecret: "bench-client-secret",
    checks: ["pkce", "state"] as ("pkce" | "state")[],
    authorization: { url: `${url}/authorize`, params: { scope: "profile" } },
    token: `${url}/token`,
    userinfo: `${url}/userinfo`,
    profile,
    ...(library === "portcullis" ? { allowInsecureLoopback: true } : {}),
  }]
}


async function authorize(credentials: Partial<Record<string, unknown>>) {
  return credentials.username === BENCH_CREDENTIALS.username && credentials.password === BENCH_CREDENTIALS.password
    ? { ...BENCH_USER }
    : null
}

const fields = { username: { label: "Username" }, password: { label: "Password", type: "password" } }

/** Portcullis with JWT sessions; `reissue` sets `updateAge: 0` so every check re-encrypts. */
export function portcullisConfig(options: { reissue: boolean; telemetry?: boolean }): PortcullisConfig {
  return {
    ...(options.telemetry === false && { telemetry: false }),
    secret: SECRET,
    basePath: BASE_PATH,
    trustHost: true,
    session: options.reissue ? { strategy: "jwt", updateAge: 0 } : { strategy: "jwt" },
    providers: [Credentials({ credentials: fields, authorize }), ...(localOAuth("portcullis") as PortcullisConfig["providers"])],
    // The bench signs one user in from many connections at once, which the lockout rightly
    // refuses (attempts in flight count); @auth/core has no limits. Compare the work itself.
    rateLimit: false,
  }
}

/** @auth/core with its defaults (JWT sessions, re-encrypted on every check). */
export function authjsConfig(): AuthjsConfig {
  return {
    secret: SECRET,
    basePath: BASE_PATH,
    trustHost: true,
    session: { strategy: "jwt" },
    providers: [AuthjsCredentials({ credentials: fields, authorize }), ...(localOAuth("authjs") as AuthjsConfig["providers"])],
  }
}

/**
 * Database sessions: both libraries get the same adapter object (one `SqlAdapter`, the
 * same method for method) and their defaults (30 days maxAge, 24 h updateAge). No
 * provider: the bench writes the session row itself, and Auth.js refuses credentials
 * sign-in with database sessions anyway.
 */
export function portcullisDbConfig(adapter: Adapter): PortcullisConfig {
  return {
    secret: SECRET,
    basePath: BASE_PATH,
    trustHost: true,
    adapter,
    session: { strategy: "database" },
    providers: [],
  }
}

/** @auth/core with database sessions on the same adapter (the interface is Auth.js's). */
export function authjsDbConfig(adapter: Adapter): AuthjsConfig {
  return {
    secret: SECRET,
    basePath: BASE_PATH,
    trustHost: true,
    adapter: adapter as unknown as AuthjsAdapter,
    session: { strategy: "database" },
    providers: [],
  }
}

/**
 * Portcullis with JWT sessions whose credentials sign-in verifies the password against an
 * argon2id hash (`verify`), as an app's password sign-in does: the burst row's server.
 */
export function portcullisPasswordConfig(verify: (password: string) => Promise<boolean>): PortcullisConfig {
  const checked = async (credentials: Partial<Record<string, unknown>>) =>
    credentials.username === BENCH_CREDENTIALS.username && typeof credentials.password === "string" && (await verify(credentials.password)) ? { ...BENCH_USER } : null
  return {
    secret: SECRET,
    basePath: BASE_PATH,
    trustHost: true,
    session: { strategy: "jwt" },
    providers: [Credentials({ credentials: fields, authorize: checked })],
    rateLimit: false,
  }
}

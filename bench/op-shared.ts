/**
 * Constants of the OpenID Provider bench rows (issue 34), shared by the OP servers
 * (`op-server.ts`), the runner (`op-run.ts`) and the test (`op.test.ts`). Imports nothing.
 */

/** The OP server targets `bench/server.ts` runs (see `op-server.ts`). */
export const OP_TARGETS = ["op-portcullis", "op-oidc-provider"] as const
export type OpTarget = (typeof OP_TARGETS)[number]

/** The one confidential client both providers register (client_secret_basic). */
export const OP_CLIENT = {
  id: "bench",
  secret: "bench-op-client-secret-0123456789abcdef0123456789",
  redirectUri: "https://rp.bench.example/callback",
} as const

/** What every bench code grants: an ID token with email and name, and a refresh token. */
export const OP_SCOPE = "openid email profile offline_access"
/** oidc-provider's one resource server (its JWT access tokens are issued for a resource). */
export const OP_RESOURCE = "https://api.bench.example"
/** The PKCE verifier of every bench code (S256; 43 characters). */
export const OP_VERIFIER = "bench-pkce-verifier-0123456789abcdefghijklmnopq"

/** Each target's protocol paths. */
export const OP_PATHS: Record<OpTarget, { token: string; userinfo: string }> = {
  "op-portcullis": { token: "/auth/oidc/token", userinfo: "/auth/oidc/userinfo" },
  "op-oidc-provider": { token: "/token", userinfo: "/me" },
}

/**
 * For the integrations' getAccessToken tests: a real refresh-token-rotating OpenID
 * provider, and a database-session user whose `op` account's access token has expired —
 * signed in by a session cookie, as a browser would be.
 */
import { afterAll, beforeAll } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SECRET } from "../helpers.js"
import { clientId, clientSecret, startRefreshOp, type RefreshOp } from "./refresh-op.js"

export interface TokenFixture {
  readonly op: RefreshOp
  /** A config (database sessions, memory adapter) with the provider `op`. */
  config(extra?: Partial<AuthConfig>): AuthConfig
  /** A signed-in user whose `op` access token has expired: their session cookie, and the account as stored now. */
  expiredUser(): Promise<{ cookie: string; userId: string; refreshToken: string; stored(): Promise<{ access_token?: unknown; refresh_token?: unknown } | null> }>
}

export function tokenFixture(): TokenFixture {
  let op: RefreshOp | undefined
  const adapter: Adapter = MemoryAdapter()
  beforeAll(async () => {
    op = await startRefreshOp()
  })
  afterAll(() => op?.close())
  return {
    get op() {
      return op!
    },
    config: (extra = {}) => ({
      secret: SECRET,
      trustHost: true,
      adapter,
      providers: [{ id: "op", name: "OP", type: "oidc", issuer: op!.issuer, clientId, clientSecret, allowInsecureLoopback: true } as any],
      ...extra,
    }),
    async expiredUser() {
      const userId = crypto.randomUUID()
      await adapter.createUser!({ id: userId, email: `${userId}@example.com`, emailVerified: null })
      const refreshToken = await op!.mintRefreshToken()
      await adapter.linkAccount!({ userId, type: "oidc", provider: "op", providerAccountId: crypto.randomUUID(), access_token: "stale", refresh_token: refreshToken, expires_at: Math.floor(Date.now() / 1000) - 10 })
      const sessionToken = crypto.randomUUID()
      await adapter.createSession!({ sessionToken, userId, expires: new Date(Date.now() + 3_600_000) })
      return { cookie: `authjs.session-token=${sessionToken}`, userId, refreshToken, stored: async () => adapter.getAccountByUserId!(userId, "op") }
    },
  }
}

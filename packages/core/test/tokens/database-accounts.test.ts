/**
 * getAccessToken for accounts stored by the adapter (database sessions, or any code that
 * knows the user id), against a real OpenID provider that rotates refresh tokens and
 * refuses a used one (revoking its grant). Counts are taken at the provider.
 */
import { createHash } from "node:crypto"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createAuth, getAccessToken, ReauthRequired, TokenRefreshFailed, type AuthConfig } from "@portcullis/core"
import type { Adapter, AdapterAccount } from "@portcullis/core/adapters"
import { MissingAdapterMethods, InvalidProvider } from "@portcullis/core/errors"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { SECRET, captureLogger } from "../helpers.js"
import { clientId, clientSecret, startRefreshOp, type RefreshOp } from "./refresh-op.js"

let op: RefreshOp
beforeAll(async () => {
  op = await startRefreshOp()
})
afterAll(() => op.close())
beforeEach(() => {
  op.requests.length = 0
  op.rotate = true
  op.fault = "none"
  op.accessTtl = 3600
})

const now = () => Math.floor(Date.now() / 1000)

function appConfig(adapter: Adapter, extra: Partial<AuthConfig> = {}, provider: Record<string, unknown> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: true,
    adapter,
    providers: [{ id: "op", name: "OP", type: "oidc", issuer: op.issuer, clientId, clientSecret, allowInsecureLoopback: true, ...provider } as any],
    ...extra,
  }
}

/** A user with an `op` account whose access token expired `ago` seconds ago (or expires in `-ago`). */
async function userWithAccount(adapter: Adapter, fields: Partial<AdapterAccount> = {}) {
  const userId = crypto.randomUUID()
  await adapter.createUser!({ id: userId, email: `${userId}@example.com`, emailVerified: null })
  const refreshToken = await op.mintRefreshToken()
  const account: AdapterAccount = {
    userId,
    type: "oidc",
    provider: "op",
    providerAccountId: crypto.randomUUID(),
    access_token: "stale-access-token",
    refresh_token: refreshToken,
    expires_at: now() - 10,
    token_type: "bearer",
    ...fields,
  }
  await adapter.linkAccount!(account)
  return { userId, account, refreshToken }
}

const stored = (adapter: Adapter, userId: string) => adapter.getAccountByUserId!(userId, "op")

describe("a token that is still valid", () => {
  it("is returned as stored, without asking the provider", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter, { access_token: "still-good", expires_at: now() + 3600 })
    const token = await getAccessToken(createAuth(appConfig(adapter)), { userId, provider: "op" })
    expect(token).toMatchObject({ accessToken: "still-good", refreshed: false, tokenType: "bearer" })
    expect(op.requests).toEqual([])
  })

  it("counts as expired within the skew: a token with 30 s left is refreshed under the default 60 s, kept under 10 s", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter, { access_token: "thirty-seconds-left", expires_at: now() + 30 })
    const kept = await getAccessToken(createAuth(appConfig(adapter, { tokenRefresh: { skew: 10 } })), { userId, provider: "op" })
    expect(kept.accessToken).toBe("thirty-seconds-left")
    expect(op.refreshRequests()).toHaveLength(0)
    const refreshed = await getAccessToken(createAuth(appConfig(adapter)), { userId, provider: "op" })
    expect(refreshed.accessToken).not.toBe("thirty-seconds-left")
    expect(refreshed.refreshed).toBe(true)
    expect(op.refreshRequests()).toHaveLength(1)
  })
})

describe("an expired token", () => {
  it("is refreshed with the stored refresh token, and the rotated refresh token is stored", async () => {
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    const auth = createAuth(appConfig(adapter))
    const token = await getAccessToken(auth, { userId, provider: "op" })
    expect(token.refreshed).toBe(true)
    expect(token.accessToken).not.toBe("stale-access-token")
    expect(token.expiresAt).toBeGreaterThan(now() + 3000)
    const after = await stored(adapter, userId)
    expect(after?.access_token).toBe(token.accessToken)
    expect(after?.refresh_token).not.toBe(refreshToken)
    expect(after?.expires_at).toBe(token.expiresAt)
    expect(op.refreshRequests().map((r) => r.refreshToken)).toEqual([refreshToken])
  })

  it("is refreshed again later with the rotated refresh token, never the first one", async () => {
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    const auth = createAuth(appConfig(adapter))
    await getAccessToken(auth, { userId, provider: "op" })
    const second = (await stored(adapter, userId))!.refresh_token
    await adapter.updateAccount!((await stored(adapter, userId))!, { expires_at: now() - 1 })
    const again = await getAccessToken(auth, { userId, provider: "op" })
    expect(again.refreshed).toBe(true)
    expect(op.refreshRequests().map((r) => r.refreshToken)).toEqual([refreshToken, second])
    expect(op.refreshRequests().every((r) => r.status === 200)).toBe(true)
  })
})

describe("50 concurrent calls for one account", () => {
  it("make exactly one refresh request; every caller gets the new token; the old refresh token is sent once", async () => {
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    const auth = createAuth(appConfig(adapter))
    const tokens = await Promise.all(Array.from({ length: 50 }, () => getAccessToken(auth, { userId, provider: "op" })))
    expect(op.refreshRequests()).toHaveLength(1)
    expect(op.refreshRequests()[0]).toMatchObject({ refreshToken, status: 200 })
    const fresh = (await stored(adapter, userId))!
    expect(new Set(tokens.map((t) => t.accessToken))).toEqual(new Set([fresh.access_token]))
    expect(tokens.every((t) => t.refreshed)).toBe(true)
  })

  it("through two runtimes sharing the store (two app instances), still one refresh: the other waits on the lock and reads the stored result", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter)
    const [one, two] = [createAuth(appConfig(adapter)), createAuth(appConfig(adapter))]
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => getAccessToken(i % 2 ? one : two, { userId, provider: "op" })))
    expect(op.refreshRequests()).toHaveLength(1)
    const fresh = (await stored(adapter, userId))!
    expect(new Set(tokens.map((t) => t.accessToken))).toEqual(new Set([fresh.access_token]))
  })

  it("when the provider's tokens live shorter than the skew, waiters on the other instance take the holder's token instead of refreshing again", async () => {
    op.accessTtl = 30
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter)
    const [one, two] = [createAuth(appConfig(adapter)), createAuth(appConfig(adapter))]
    const tokens = await Promise.all(Array.from({ length: 50 }, (_, i) => getAccessToken(i % 2 ? one : two, { userId, provider: "op" })))
    expect(op.refreshRequests()).toHaveLength(1)
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1)
  })

  it("for 10 different accounts at once, one refresh each", async () => {
    const adapter = MemoryAdapter()
    const users = await Promise.all(Array.from({ length: 10 }, () => userWithAccount(adapter)))
    const auth = createAuth(appConfig(adapter))
    const tokens = await Promise.all(users.flatMap(({ userId }) => Array.from({ length: 5 }, () => getAccessToken(auth, { userId, provider: "op" }).then((t) => ({ userId, t })))))
    expect(op.refreshRequests()).toHaveLength(10)
    for (const { userId, t } of tokens) expect(t.accessToken).toBe((await stored(adapter, userId))!.access_token)
  })
})

describe("a provider that does not rotate refresh tokens", () => {
  it("keeps the stored refresh token, which keeps working", async () => {
    op.rotate = false
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    const auth = createAuth(appConfig(adapter))
    const first = await getAccessToken(auth, { userId, provider: "op" })
    expect((await stored(adapter, userId))?.refresh_token).toBe(refreshToken)
    await adapter.updateAccount!((await stored(adapter, userId))!, { expires_at: now() - 1 })
    const second = await getAccessToken(auth, { userId, provider: "op" })
    expect(second.accessToken).not.toBe(first.accessToken)
    expect(op.refreshRequests().map((r) => [r.refreshToken, r.status])).toEqual([[refreshToken, 200], [refreshToken, 200]])
  })
})

describe("invalid_grant (the provider refuses the refresh token)", () => {
  it("is ReauthRequired with reason invalid_grant, and the account is marked so later calls do not ask again", async () => {
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    await op.revokeGrantOf(refreshToken)
    const auth = createAuth(appConfig(adapter))
    const error = await getAccessToken(auth, { userId, provider: "op" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ReauthRequired)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "invalid_grant", provider: "op" })
    expect((await stored(adapter, userId))?.reauth_required).toBe(true)
    expect(op.refreshRequests()).toHaveLength(1)

    const again = await getAccessToken(createAuth(appConfig(adapter)), { userId, provider: "op" }).catch((e: unknown) => e)
    expect(again).toMatchObject({ type: "ReauthRequired", reason: "marked" })
    expect(op.refreshRequests()).toHaveLength(1)
  })

  it("reaches all 50 concurrent callers as the same refusal, after one request", async () => {
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    await op.revokeGrantOf(refreshToken)
    const auth = createAuth(appConfig(adapter))
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => getAccessToken(auth, { userId, provider: "op" })))
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof ReauthRequired)).toBe(true)
    expect(op.refreshRequests()).toHaveLength(1)
  })

  it("never leaks the refresh token or the provider's answer into the log", async () => {
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    await op.revokeGrantOf(refreshToken)
    const { lines, logger } = captureLogger()
    const error = await getAccessToken(createAuth(appConfig(adapter, { logger })), { userId, provider: "op" }).catch((e: Error) => e)
    logger.error(error as Error)
    expect(lines.join("\n")).not.toContain(refreshToken)
  })
})

describe("the token endpoint fails", () => {
  for (const [fault, title] of [
    ["drop", "drops the connection"],
    ["unavailable", "answers 503"],
  ] as const) {
    it(`${title}: TokenRefreshFailed, the account is not marked, the lock is released so the next call succeeds at once`, async () => {
      const adapter = MemoryAdapter()
      const { userId, refreshToken } = await userWithAccount(adapter)
      // A minute-long lock: a lock left behind would make the retry below time out.
      const auth = createAuth(appConfig(adapter, { tokenRefresh: { lockTtl: 60_000 } }))
      op.fault = fault
      const error = await getAccessToken(auth, { userId, provider: "op" }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(TokenRefreshFailed)
      expect(error).toMatchObject({ type: "TokenRefreshFailed" })
      const after = await stored(adapter, userId)
      expect(after?.reauth_required).toBeUndefined()
      expect(after?.refresh_token).toBe(refreshToken)

      op.fault = "none"
      const token = await getAccessToken(auth, { userId, provider: "op" })
      expect(token.refreshed).toBe(true)
    })
  }

  it("answers too late: TokenRefreshFailed after the provider's timeout, not marked, and the 50 callers waiting on it all get that error", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter)
    const auth = createAuth(appConfig(adapter, { tokenRefresh: { lockTtl: 60_000 } }, { timeout: 200 }))
    op.fault = "slow"
    op.slowMs = 1_000
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => getAccessToken(auth, { userId, provider: "op" })))
    expect(results.every((r) => r.status === "rejected" && r.reason instanceof TokenRefreshFailed && /timed out/.test(r.reason.message))).toBe(true)
    expect((await stored(adapter, userId))?.reauth_required).toBeUndefined()
    op.fault = "none"
    expect((await getAccessToken(auth, { userId, provider: "op" })).refreshed).toBe(true)
  })
})

describe("a lock holder that dies mid-refresh", () => {
  it("holds the others off only until its lock expires; then one of them refreshes, once", async () => {
    const adapter = MemoryAdapter()
    const { userId, account } = await userWithAccount(adapter)
    // Another instance took the lock and died: it never releases it.
    const lockKey = `token-refresh:${createHash("sha256").update(`op\u0000${account.providerAccountId}`).digest("hex")}`
    expect(await adapter.acquireLock!(lockKey, "dead instance", 300)).toBe(true)
    const auth = createAuth(appConfig(adapter))
    const tokens = await Promise.all(Array.from({ length: 20 }, () => getAccessToken(auth, { userId, provider: "op" })))
    expect(op.refreshRequests()).toHaveLength(1)
    expect(new Set(tokens.map((t) => t.accessToken)).size).toBe(1)
  })

  it("a waiter gives up with TokenRefreshFailed when the lock never frees within lockTtl + 5 s", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter)
    // A lock that always says "taken": an instance wedged forever.
    const wedged = { acquire: async () => false, release: async () => {} }
    const auth = createAuth(appConfig(adapter, { tokenRefresh: { lock: wedged, lockTtl: 100 } }))
    const error = await getAccessToken(auth, { userId, provider: "op" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(TokenRefreshFailed)
    expect(op.refreshRequests()).toHaveLength(0)
  }, 15_000)
})

describe("the store fails", () => {
  it("a lock store that is down: AdapterError, nothing sent to the provider, the account untouched", async () => {
    const adapter = MemoryAdapter()
    const { userId, refreshToken } = await userWithAccount(adapter)
    const down = { ...adapter, acquireLock: async () => Promise.reject(new Error("ECONNREFUSED")) }
    const error = await getAccessToken(createAuth(appConfig(down)), { userId, provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "AdapterError" })
    expect(op.requests).toEqual([])
    expect((await stored(adapter, userId))?.refresh_token).toBe(refreshToken)
  })

  it("a store that does not answer: AdapterError after adapterTimeout, the 50 callers all get it, no refresh sent", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter)
    const paused = { ...adapter, getAccountByUserId: () => new Promise<never>(() => {}) }
    const auth = createAuth(appConfig(paused, { adapterTimeout: 100 }))
    const results = await Promise.allSettled(Array.from({ length: 50 }, () => getAccessToken(auth, { userId, provider: "op" })))
    expect(results.every((r) => r.status === "rejected" && (r.reason as { type?: string }).type === "AdapterError")).toBe(true)
    expect(op.requests).toEqual([])
  })

  it("a store that fails writing the refreshed token: AdapterError, and the lock is still released", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter)
    let fail = true
    const flaky = { ...adapter, updateAccount: (...args: Parameters<NonNullable<Adapter["updateAccount"]>>) => (fail ? Promise.reject(new Error("disk full")) : adapter.updateAccount!(...args)) }
    const auth = createAuth(appConfig(flaky, { tokenRefresh: { lockTtl: 60_000 } }))
    const error = await getAccessToken(auth, { userId, provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "AdapterError" })
    fail = false
    // The provider rotated the token it got; the store never learnt the new one, so the
    // next attempt (with a lock that was released, or it would wait a minute) is refused.
    const next = await getAccessToken(auth, { userId, provider: "op" }).catch((e: unknown) => e)
    expect(next).toMatchObject({ type: "ReauthRequired", reason: "invalid_grant" })
  })
})

describe("a stored expiry that was tampered with or broken", () => {
  for (const [label, value] of [
    ["a word", "soon"],
    ["not a number", Number.NaN],
    ["negative", -5],
    ["a fraction", 1.5],
    ["an object", { $gt: 0 }],
  ] as const) {
    it(`(${label}) counts as expired: refreshed, never handed out as valid forever`, async () => {
      const adapter = MemoryAdapter()
      const { userId } = await userWithAccount(adapter, { access_token: "tampered", expires_at: value as never })
      const token = await getAccessToken(createAuth(appConfig(adapter)), { userId, provider: "op" })
      expect(token.accessToken).not.toBe("tampered")
      expect(op.refreshRequests()).toHaveLength(1)
    })
  }

  it("a numeric string (PostgreSQL bigint) is read as the number it is", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter, { access_token: "good", expires_at: String(now() + 3600) as never })
    const token = await getAccessToken(createAuth(appConfig(adapter)), { userId, provider: "op" })
    expect(token.accessToken).toBe("good")
    expect(op.requests).toEqual([])
  })
})

describe("what cannot be refreshed", () => {
  it("no account with the provider: ReauthRequired (no_account)", async () => {
    const adapter = MemoryAdapter()
    const error = await getAccessToken(createAuth(appConfig(adapter)), { userId: "nobody", provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "no_account" })
  })

  it("an expired token without a refresh token: ReauthRequired (no_refresh_token), nothing sent", async () => {
    const adapter = MemoryAdapter()
    const { userId } = await userWithAccount(adapter, { refresh_token: undefined })
    const error = await getAccessToken(createAuth(appConfig(adapter)), { userId, provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "ReauthRequired", reason: "no_refresh_token" })
    expect(op.requests).toEqual([])
  })

  it("an unknown or non-OAuth provider id: InvalidProvider", async () => {
    const adapter = MemoryAdapter()
    const error = await getAccessToken(createAuth(appConfig(adapter)), { userId: "u", provider: "nope" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidProvider)
  })

  it("an Auth.js adapter without updateAccount: MissingAdapterMethods naming what is missing, before the provider is asked", async () => {
    const { getAccountByUserId: _g, updateAccount: _u, acquireLock: _a, releaseLock: _r, ...authJsShaped } = MemoryAdapter()
    const full = MemoryAdapter()
    const { userId } = await userWithAccount(full)
    const error = await getAccessToken(createAuth(appConfig(authJsShaped)), { userId, provider: "op" }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MissingAdapterMethods)
    expect((error as Error).message).toMatch(/getAccountByUserId and updateAccount/)
    expect(op.requests).toEqual([])
  })

  it("a session without user.id: a clear InvalidConfig, not a crash", async () => {
    const adapter = MemoryAdapter()
    const error = await getAccessToken(createAuth(appConfig(adapter)), { session: { user: { name: "x" }, expires: "" }, provider: "op" }).catch((e: unknown) => e)
    expect(error).toMatchObject({ type: "InvalidConfig" })
  })
})

describe("the tokenRefresh option", () => {
  for (const bad of [{ skew: -1 }, { skew: "60" }, { lockTtl: 5 }, { lock: {} }, { jwt: "yes" }, "on", [], null]) {
    it(`refuses ${JSON.stringify(bad)} as InvalidConfig`, async () => {
      const error = await getAccessToken(createAuth(appConfig(MemoryAdapter(), { tokenRefresh: bad as never })), { userId: "u", provider: "op" }).catch((e: unknown) => e)
      expect(error).toMatchObject({ type: "InvalidConfig" })
    })
  }
})

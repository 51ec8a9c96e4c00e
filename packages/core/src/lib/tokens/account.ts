import type { AccountTokenPatch, Adapter, AdapterAccount } from "../../adapters.js"
import { MissingAdapter, MissingAdapterMethods, ReauthRequired, TokenRefreshFailed } from "../../errors.js"
import type { OAuthConfig } from "../../providers/oauth.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { randomHex, sha256Hex } from "../crypto.js"
import { storedExpiry, stillValid } from "./expiry.js"
import type { AccessToken } from "./result.js"

/** The adapter methods the database path needs; Auth.js adapters have neither. */
type TokenStore = Required<Pick<Adapter, "getAccountByUserId" | "updateAccount">>

function tokenStore(config: ResolvedConfig): TokenStore {
  const { adapter } = config
  if (!adapter) throw new MissingAdapter("getAccessToken with a user id needs an adapter that stores accounts (or tokenRefresh.jwt with JWT sessions)")
  const missing = (["getAccountByUserId", "updateAccount"] as const).filter((m) => typeof adapter[m] !== "function")
  if (missing.length) {
    throw new MissingAdapterMethods(
      `getAccessToken needs the adapter methods ${missing.join(" and ")}, which Auth.js adapters do not have: use a Portcullis adapter (memory, SQL, Redis) or add them (docs/adapters.md)`,
    )
  }
  return adapter as TokenStore
}

/**
 * A valid access token for `userId`'s account with `provider`, refreshed first when it
 * expires within `skew` seconds. Concurrent callers in this process share one refresh
 * (single flight); across processes the refresh runs under the configuration's lock, and
 * a caller that finds it held waits and reads the account the holder stored.
 */
export async function accessTokenForUser(config: ResolvedConfig, provider: OAuthConfig<any>, userId: string): Promise<AccessToken> {
  const store = tokenStore(config)
  const account = await store.getAccountByUserId(userId, provider.id)
  if (!account) throw new ReauthRequired(`The user has no "${provider.id}" account`, { reason: "no_account", provider: provider.id })
  const ready = usable(config, provider, account)
  if (ready) return ready
  const { tokenRefresh } = config
  const key = `account\u0000${provider.id}\u0000${account.providerAccountId}`
  return tokenRefresh.singleFlight(key, () => refreshUnderLock(config, store, provider, account))
}

/** The stored token when it is good for `skew` more seconds; throws when it can never be refreshed. */
function usable(config: ResolvedConfig, provider: OAuthConfig<any>, account: AdapterAccount, refreshed = false, skew = config.tokenRefresh.skew): AccessToken | undefined {
  if (account.reauth_required) {
    throw new ReauthRequired(`The "${provider.id}" account needs the user to sign in again (an earlier refresh was refused)`, { reason: "marked", provider: provider.id })
  }
  const expiresAt = storedExpiry(account.expires_at)
  if (typeof account.access_token === "string" && account.access_token && stillValid(expiresAt, skew)) {
    return toAccessToken(account, expiresAt, refreshed)
  }
  if (typeof account.refresh_token !== "string" || !account.refresh_token) {
    throw new ReauthRequired(`The "${provider.id}" access token has expired and there is no refresh token`, { reason: "no_refresh_token", provider: provider.id })
  }
  return undefined
}

/**
 * What another refresh left: a token someone else just got (the access token is no longer
 * the one this call saw) is handed out while it has not expired, even when the provider's
 * lifetime is shorter than the skew — refreshing it again would only burn a request.
 */
function afterOthers(config: ResolvedConfig, provider: OAuthConfig<any>, seen: AdapterAccount, current: AdapterAccount): AccessToken | undefined {
  const replaced = current.access_token !== seen.access_token || current.refresh_token !== seen.refresh_token
  return usable(config, provider, current, replaced, replaced ? 0 : config.tokenRefresh.skew)
}

function toAccessToken(account: AdapterAccount, expiresAt: number | undefined, refreshed: boolean): AccessToken {
  return {
    accessToken: account.access_token as string,
    expiresAt,
    tokenType: typeof account.token_type === "string" ? account.token_type : undefined,
    scope: typeof account.scope === "string" ? account.scope : undefined,
    refreshed,
  }
}

/** Between two looks at a lock someone else holds: short at first, then up to half a second. */
const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** attempt, 500)))

async function refreshUnderLock(config: ResolvedConfig, store: TokenStore, provider: OAuthConfig<any>, seen: AdapterAccount): Promise<AccessToken> {
  const { tokenRefresh, logger } = config
  // Hashed: keys stay short and free of separators whatever the ids hold.
  const lockKey = `token-refresh:${await sha256Hex(`${provider.id}\u0000${seen.providerAccountId}`)}`
  const owner = randomHex(16)
  const reread = async () => {
    const account = await store.getAccountByUserId(seen.userId, provider.id)
    if (!account || account.providerAccountId !== seen.providerAccountId) {
      throw new ReauthRequired(`The "${provider.id}" account was unlinked`, { reason: "no_account", provider: provider.id })
    }
    return account
  }
  // A waiter gives up only after a dead holder's lock would have expired.
  const deadline = Date.now() + tokenRefresh.lockTtl + 5_000
  for (let attempt = 0; !(await tokenRefresh.lock.acquire(lockKey, owner, tokenRefresh.lockTtl)); attempt++) {
    if (Date.now() > deadline) throw new TokenRefreshFailed(`Another instance held the refresh lock of the "${provider.id}" account for too long`, { providerId: provider.id })
    await pause(attempt)
    // The holder may have stored a fresh token (or the mark) meanwhile: use it, don't refresh again.
    const ready = afterOthers(config, provider, seen, await reread())
    if (ready) return ready
  }
  try {
    // Read again under the lock: a holder that released it just before we took it has
    // already stored the new token, and its old refresh token must not be sent again.
    const current = await reread()
    const ready = afterOthers(config, provider, seen, current)
    if (ready) return ready
    const oldRefreshToken = current.refresh_token as string
    let tokens
    try {
      // OAuth code, loaded when a refresh happens, not at startup.
      const { refreshGrant } = await import("./grant.js")
      tokens = await refreshGrant(config, provider, oldRefreshToken)
    } catch (error) {
      if (error instanceof ReauthRequired) {
        // Persisted, so every instance stops asking the provider with a dead token.
        await store.updateAccount(current, { reauth_required: true }, { refresh_token: oldRefreshToken })
      }
      throw error
    }
    if (typeof tokens.access_token !== "string" || !tokens.access_token) {
      throw new TokenRefreshFailed(`The token endpoint of "${provider.id}" answered the refresh without an access token`, { providerId: provider.id })
    }
    const patch: AccountTokenPatch = {
      access_token: tokens.access_token,
      // A provider that does not rotate sends none: the old one stays valid.
      refresh_token: typeof tokens.refresh_token === "string" && tokens.refresh_token ? tokens.refresh_token : oldRefreshToken,
      expires_at: typeof tokens.expires_at === "number" ? tokens.expires_at : null,
      reauth_required: false,
    }
    if (typeof tokens.token_type === "string") patch.token_type = tokens.token_type
    if (typeof tokens.scope === "string") patch.scope = tokens.scope
    if (typeof tokens.id_token === "string") patch.id_token = tokens.id_token
    const stored = await store.updateAccount(current, patch, { refresh_token: oldRefreshToken })
    if (!stored) {
      // Someone changed the account meanwhile (a lock that expired under a slow refresh, a
      // new sign-in): theirs stays; this token is still good to hand out once.
      logger.warn("token-refresh-conflict", { provider: provider.id })
    }
    return toAccessToken({ ...current, ...(stored ?? (patch as Partial<AdapterAccount>)) } as AdapterAccount, patch.expires_at ?? undefined, true)
  } finally {
    await tokenRefresh.lock.release(lockKey, owner).catch((error: Error) => logger.error(error))
  }
}

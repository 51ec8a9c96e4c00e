import type { Account } from "../../base-types.js"
import { ReauthRequired, TokenRefreshFailed } from "../../errors.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { randomHex, sha256Hex } from "../crypto.js"
import { decodeWith, encodeWith } from "../jwt/codec.js"
import type { JWT } from "../jwt/types.js"
import { storedExpiry, stillValid } from "./expiry.js"
import { refreshableProvider } from "./provider.js"
import type { AccessToken } from "./result.js"

/**
 * The JWT claim holding the provider tokens of the sign-in, with `tokenRefresh.jwt`. The
 * session cookie is encrypted (JWE), so they are as private as the cookie; the session
 * object sent to the browser never includes them.
 */
export const TOKENS_CLAIM = "pcl_oauth"

/** What {@link TOKENS_CLAIM} holds. */
export interface HeldTokens {
  provider: string
  access_token: string
  refresh_token?: string
  expires_at?: number
  token_type?: string
  scope?: string
  /** Set when the provider refused the refresh token: the user must sign in again. */
  reauth?: true
}

/** The claim for a new session signed in through `account`, when it carries an access token. */
export function heldFromAccount(config: ResolvedConfig, account: Account | null | undefined): HeldTokens | undefined {
  if (!config.tokenRefresh.jwt || !account || (account.type !== "oauth" && account.type !== "oidc")) return undefined
  if (typeof account.access_token !== "string" || !account.access_token) return undefined
  const held: HeldTokens = { provider: account.provider, access_token: account.access_token }
  if (typeof account.refresh_token === "string" && account.refresh_token) held.refresh_token = account.refresh_token
  const expiresAt = storedExpiry(account.expires_at)
  if (expiresAt !== undefined) held.expires_at = expiresAt
  if (typeof account.token_type === "string") held.token_type = account.token_type
  if (typeof account.scope === "string") held.scope = account.scope
  return held
}

/** The claim of a token, if it has a well-formed one. */
export function heldIn(token: JWT): HeldTokens | undefined {
  const held = token[TOKENS_CLAIM] as Partial<HeldTokens> | undefined
  if (!held || typeof held !== "object" || typeof held.provider !== "string" || typeof held.access_token !== "string") return undefined
  return held as HeldTokens
}

export function accessTokenOf(held: HeldTokens, refreshed: boolean): AccessToken {
  return { accessToken: held.access_token, expiresAt: storedExpiry(held.expires_at), tokenType: held.token_type, scope: held.scope, refreshed }
}

/** Whether `held` needs no refresh for `skew` more seconds (or cannot have one). */
export function heldIsCurrent(config: ResolvedConfig, held: HeldTokens): boolean {
  return !!held.reauth || !held.refresh_token || stillValid(storedExpiry(held.expires_at), config.tokenRefresh.skew)
}

/**
 * Whether `held` must be refreshed before use: `false` while it is good for `skew` more
 * seconds. Throws {@link ReauthRequired} when no refresh can help: the tokens are marked
 * as refused, or expired with no refresh token.
 */
export function needsRefresh(config: ResolvedConfig, held: HeldTokens): held is HeldTokens & { refresh_token: string } {
  if (held.reauth) throw new ReauthRequired(`The "${held.provider}" tokens of this session were refused: the user must sign in again`, { reason: "marked", provider: held.provider })
  if (stillValid(storedExpiry(held.expires_at), config.tokenRefresh.skew)) return false
  if (!held.refresh_token) throw new ReauthRequired(`The "${held.provider}" access token has expired and there is no refresh token`, { reason: "no_refresh_token", provider: held.provider })
  return true
}

/** How long a rotation is handed to other requests carrying the old refresh token. */
const HANDOFF_MS = 60_000

const pause = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(25 * 2 ** attempt, 500)))

/**
 * The held tokens, refreshed when they expire within `skew`: the same object when nothing
 * changed. Every request carrying the same old refresh token — concurrent ones in this
 * process, and on other instances through the lock's shared value — gets the one rotation
 * the first of them made; the old refresh token goes to the provider once.
 *
 * @throws {@link ReauthRequired} when marked or refused, {@link TokenRefreshFailed} when the
 * provider could not be asked.
 */
export async function rotateHeld(config: ResolvedConfig, held: HeldTokens): Promise<HeldTokens> {
  if (!needsRefresh(config, held)) return held
  // Loaded here, not at startup: the grant is OAuth code, which an app whose sessions carry
  // no provider tokens must not load (runtimes/test/entry-weight.test.ts).
  const { refreshGrant } = await import("./grant.js")
  const provider = refreshableProvider(config, held.provider)
  const oldRefreshToken = held.refresh_token
  const id = await sha256Hex(`${provider.id}\u0000${oldRefreshToken}`)
  const { tokenRefresh, keys, secrets, logger } = config
  const remembered = tokenRefresh.recall<HeldTokens>(id)
  if (remembered) return afterHandoff(held, remembered)

  return tokenRefresh.singleFlight(`jwt\u0000${id}`, async () => {
    const lockKey = `token-refresh-jwt:${id}`
    const shareKey = `token-refresh-jwt-done:${id}`
    const { lock } = tokenRefresh
    // The rotation another instance made, sealed with this configuration's secret.
    const handedOff = async (): Promise<HeldTokens | undefined> => {
      const sealed = await lock.read?.(shareKey)
      if (!sealed) return undefined
      const opened = await decodeWith<JWT>(keys, { token: sealed, secret: secrets, salt: shareKey }).catch(() => null)
      return opened ? (opened.held as HeldTokens) : undefined
    }
    const owner = randomHex(16)
    const deadline = Date.now() + tokenRefresh.lockTtl + 5_000
    for (let attempt = 0; !(await lock.acquire(lockKey, owner, tokenRefresh.lockTtl)); attempt++) {
      if (Date.now() > deadline) throw new TokenRefreshFailed(`Another instance held the refresh lock of these "${provider.id}" tokens for too long`, { providerId: provider.id })
      await pause(attempt)
      const done = await handedOff()
      if (done) return afterHandoff(held, done)
    }
    try {
      const done = await handedOff()
      if (done) return afterHandoff(held, done)
      let next: HeldTokens
      try {
        const tokens = await refreshGrant(config, provider, oldRefreshToken)
        if (typeof tokens.access_token !== "string" || !tokens.access_token) {
          throw new TokenRefreshFailed(`The token endpoint of "${provider.id}" answered the refresh without an access token`, { providerId: provider.id })
        }
        next = { provider: provider.id, access_token: tokens.access_token, refresh_token: typeof tokens.refresh_token === "string" && tokens.refresh_token ? tokens.refresh_token : oldRefreshToken }
        if (typeof tokens.expires_at === "number") next.expires_at = tokens.expires_at
        const tokenType = tokens.token_type ?? held.token_type
        if (typeof tokenType === "string") next.token_type = tokenType
        const scope = tokens.scope ?? held.scope
        if (typeof scope === "string") next.scope = scope
      } catch (error) {
        // A refusal is handed on too, so no other request sends the dead token again.
        if (!(error instanceof ReauthRequired)) throw error
        next = { ...held, reauth: true }
      }
      tokenRefresh.remember(id, next)
      if (lock.share) {
        const sealed = await encodeWith(keys, { token: { held: next } as JWT, secret: secrets, salt: shareKey, maxAge: HANDOFF_MS / 1000 })
        await lock.share(shareKey, sealed, HANDOFF_MS).catch((error: Error) => logger.error(error))
      }
      return afterHandoff(held, next)
    } finally {
      await lock.release(lockKey, owner).catch((error: Error) => logger.error(error))
    }
  })
}

/** The rotation result for a caller: throws the mark, returns the tokens otherwise. */
function afterHandoff(held: HeldTokens, next: HeldTokens): HeldTokens {
  if (next.reauth) throw new ReauthRequired(`The provider "${held.provider}" refused the refresh token (invalid_grant): the user must sign in again`, { reason: "invalid_grant", provider: held.provider })
  return next
}

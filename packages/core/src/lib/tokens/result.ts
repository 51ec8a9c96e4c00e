/**
 * A provider access token `getAccessToken` hands out: valid for at least the configured
 * `tokenRefresh.skew` when returned (unless the provider gave no expiry).
 */
export interface AccessToken {
  /** The access token, for the provider's API (`Authorization: Bearer …`). */
  accessToken: string
  /** When it expires, in seconds since the epoch; `undefined` when the provider did not say. */
  expiresAt: number | undefined
  /** The token type, lower case (`"bearer"`), when the provider said. */
  tokenType: string | undefined
  /** The scopes granted, when the provider said. */
  scope: string | undefined
  /** Whether this call (or one it joined) refreshed the token. */
  refreshed: boolean
}

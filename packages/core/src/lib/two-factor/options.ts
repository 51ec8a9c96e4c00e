/**
 * The `twoFactor` option: resolved once per configuration into what the two-factor step and
 * the enrollment API work with (`ResolvedConfig.twoFactor`).
 * @module
 */
import type { Adapter } from "../../adapters.js"
import { InvalidConfig, MissingAdapter, MissingAdapterMethods, type AuthError } from "../../errors.js"
import { adapterRefreshLock } from "../tokens/lock.js"
import { AttemptCounter } from "./attempts.js"
import { TwoFactorLedger } from "./ledger.js"
import { MemoryRefreshLock } from "../tokens/lock.js"

export { MAX_ATTEMPTS } from "./ledger.js"

/**
 * Two-factor authentication (docs/two-factor.md): a user who turned it on enters a TOTP code
 * or a backup code after any first factor before a session is issued.
 *
 * @example
 * ```ts
 * const config = { adapter, providers, twoFactor: { issuer: "Example", rememberDevice: 30 * 24 * 60 * 60 } }
 * ```
 */
export interface TwoFactorOptions {
  /** Default `true` when the object is given. `false` turns the step off (enrolled users sign in with one factor). */
  enabled?: boolean
  /** The name authenticator apps show next to the account. Default: the site's host name. */
  issuer?: string
  /**
   * Seconds a "remember this device" mark skips the step on that browser (offered on the
   * page when set). Default `0`: never remembered.
   */
  rememberDevice?: number
  /** Whether a passkey sign-in skips the step (a passkey is already two factors). Default `true`. */
  passkeySkips?: boolean
}

/** The `twoFactor` option with its defaults. */
export interface ResolvedTwoFactor {
  issuer: string | undefined
  rememberDevice: number
  passkeySkips: boolean
  /** The configuration's adapter, checked at resolution to have every two-factor method. */
  store: TwoFactorStore
  /**
   * Code attempts per challenge in this process: a cheap first line that refuses a used-up
   * or spent challenge's copies without a store round trip. The caps themselves are in
   * {@link ledger}.
   */
  attempts: AttemptCounter
  /** The wrong-code caps and the single use of challenges, in the store every instance shares. */
  ledger: TwoFactorLedger
}

/**
 * The adapter methods two-factor authentication needs: the capability's five, and the
 * verification tokens a challenge is spent with (one challenge, one session, on every instance).
 */
export const twoFactorMethods = ["getTwoFactor", "setTwoFactor", "deleteTwoFactor", "useTwoFactorStep", "useTwoFactorBackupCode", "createVerificationToken", "useVerificationToken"] as const

/** Adapter with the two-factor capability. */
export type TwoFactorStore = Adapter & { [K in (typeof twoFactorMethods)[number]]-?: NonNullable<Adapter[K]> }

/** Whether `adapter` has every two-factor method. */
export function hasTwoFactor(adapter: Adapter | undefined): adapter is TwoFactorStore {
  return !!adapter && twoFactorMethods.every((m) => typeof adapter[m] === "function")
}

export function resolveTwoFactor(option: TwoFactorOptions | undefined, adapter: Adapter | undefined, fail: (e: AuthError) => void): ResolvedTwoFactor | undefined {
  if (option === undefined || option === null) return undefined
  if (typeof option !== "object") {
    fail(new InvalidConfig(`twoFactor must be an object, got ${JSON.stringify(option)}`))
    return undefined
  }
  if (option.enabled === false) return undefined
  if (!adapter) {
    fail(new MissingAdapter("twoFactor needs an adapter to store each user's two-factor state"))
    return undefined
  }
  if (!hasTwoFactor(adapter)) {
    const missing = twoFactorMethods.filter((m) => typeof adapter[m] !== "function")
    fail(new MissingAdapterMethods(`The adapter lacks methods twoFactor needs: ${missing.join(", ")}`))
    return undefined
  }
  const { issuer, rememberDevice = 0, passkeySkips = true } = option
  if (issuer !== undefined && (typeof issuer !== "string" || !issuer.trim() || issuer.includes(":") || issuer.length > 200)) {
    fail(new InvalidConfig("twoFactor.issuer must be a non-empty string of at most 200 characters without \":\""))
  }
  // 400 days: the longest a browser keeps a cookie (RFC 6265bis).
  // Number.isInteger is false for anything that is no number.
  if (!Number.isInteger(rememberDevice) || rememberDevice < 0 || rememberDevice > 400 * 24 * 60 * 60) {
    fail(new InvalidConfig(`twoFactor.rememberDevice must be a whole number of seconds from 0 to 34560000 (400 days), got ${JSON.stringify(rememberDevice)}`))
  }
  if (typeof passkeySkips !== "boolean") fail(new InvalidConfig("twoFactor.passkeySkips must be a boolean"))
  // The adapter's lock counts for every instance; without one (the Xata adapter) this process counts.
  const lock = adapterRefreshLock(adapter)
  const ledger = new TwoFactorLedger(lock ?? new MemoryRefreshLock(), adapter)
  // Taken as given: a value refused above has failed the configuration, which then serves nothing.
  return { issuer, rememberDevice, passkeySkips, store: adapter, attempts: new AttemptCounter(), ledger }
}

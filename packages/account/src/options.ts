/**
 * The account center's options and its per-configuration state.
 * @module
 */

/** Where a client address is: a city and country for the session list ("Berlin, Germany"). */
export type Locate = (ip: string) => Promise<string | null | undefined> | string | null | undefined

/** The options of `account()`. */
export interface AccountOptions {
  /**
   * The place a session's client address is in, from the app's own resolver (a GeoIP
   * database, a header the CDN sets). Called once per listed session with an address;
   * bounded to 1 s, and a failure shows no place rather than failing the page.
   */
  locate?: Locate
  /** How long an email-change link works, in seconds (default 3600, at most a day). */
  emailChangeMaxAge?: number
}

/** What the extension keeps per configuration (`setup`). */
export interface AccountLocals {
  locate: Locate | undefined
  emailChangeMaxAge: number
}

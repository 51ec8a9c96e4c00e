import type { StoreHealth } from "../store-health.js"
import { RateLimited, ServiceUnavailable } from "../../errors.js"
import type { LogLimiter } from "../log-limiter.js"
import { addressBucket } from "./address.js"
import type { RateLimitStore } from "./store.js"

/** The ways in that are limited, by name (the keys of `rateLimit.perAddress`). */
export type RateLimitAction = "credentials" | "email" | "webauthn" | "webauthnOptions" | "oauth" | "sessionUpdate" | "twoFactor"

/** At most `max` requests per `window` seconds. */
export interface RateLimitRule {
  max: number
  /** Seconds. */
  window: number
}

/** The `rateLimited` event: who was refused, by which limit, for how long. */
export interface RateLimitedEvent {
  action: RateLimitAction
  /** Which counter refused: the client address's, the identifier's, or a credentials lockout. */
  limit: "address" | "identifier" | "lockout"
  /** The client address, when known (see `docs/rate-limiting.md` for where it comes from). */
  address?: string
  /** The normalised identifier (email, username) for identifier limits. */
  identifier?: string
  /** Seconds until the client may try again (`Retry-After`). */
  retryAfter: number
}

/** The resolved options (defaults applied): what {@link RateLimiter} works with. */
export interface RateLimitSettings {
  store: RateLimitStore
  perAddress: Record<RateLimitAction, RateLimitRule | false>
  perIdentifier: {
    credentials: (RateLimitRule & { maxLockout: number }) | false
    email: RateLimitRule | false
  }
  allowList: ReadonlySet<string>
  failClosed: ReadonlySet<RateLimitAction>
  /** Milliseconds a store call may take. */
  timeout: number
}

/** The defaults, documented in `docs/rate-limiting.md` and `docs/configuration.md`. */
export const RATE_LIMIT_DEFAULTS = Object.freeze({
  perAddress: Object.freeze({
    credentials: { max: 100, window: 15 * 60 },
    email: { max: 10, window: 60 * 60 },
    webauthn: { max: 60, window: 15 * 60 },
    webauthnOptions: { max: 120, window: 15 * 60 },
    oauth: { max: 120, window: 15 * 60 },
    sessionUpdate: { max: 600, window: 15 * 60 },
    twoFactor: { max: 30, window: 15 * 60 },
  }) as Readonly<Record<RateLimitAction, RateLimitRule>>,
  perIdentifier: Object.freeze({
    credentials: { max: 5, window: 15 * 60, maxLockout: 60 * 60 },
    email: { max: 5, window: 60 * 60 },
  }),
  failClosed: ["credentials"] as readonly RateLimitAction[],
  timeout: 1000,
})

/** Two-factor codes tried per user (any address, any challenge) per window: 10 per 15 minutes. */
export const TWO_FACTOR_PER_USER: Readonly<RateLimitRule> = Object.freeze({ max: 10, window: 15 * 60 })

/**
 * The emails counted per mailbox, each on its own: sign-in links (the email provider) and the
 * password provider's links (sign-up verification, reset).
 */
export type MailKind = "signIn" | "password"

/** Each mail kind's counter prefix (`email:i` is the sign-in links' since issue 19). */
const MAIL_COUNTERS: Readonly<Record<MailKind, string>> = Object.freeze({ signIn: "email:i", password: "email:password" })

/** How long the strikes of a credentials lockout are remembered (the exponent of the backoff). */
const STRIKE_WINDOW = 24 * 60 * 60

/**
 * The rate limits of one configuration (`ResolvedConfig.rateLimit`): counters per client
 * address and per identifier in a {@link RateLimitStore}, checked before any work is done.
 * A refusal is a {@link RateLimited} error (429 or the sign-in page); a store that fails or
 * is too slow lets the request through with a warning, except for the actions in
 * `failClosed` (by default the credentials lockout), which answer `ServiceUnavailable`.
 */
export class RateLimiter {
  #key: Promise<CryptoKey> | undefined

  constructor(
    readonly settings: RateLimitSettings,
    private readonly logLimiter: LogLimiter,
    private readonly onLimited: (event: RateLimitedEvent) => unknown,
    /** Keys the identifier hashes; every instance sharing a store must have the same. */
    private readonly secret: string,
    /** Where a fail-closed refusal's outage is counted (`lib/report.ts`); the store's failures themselves are warned about here. */
    private readonly health: StoreHealth,
  ) {}

  /**
   * Identifiers are keyed by an HMAC under the configuration's newest secret: the store never
   * holds an email address or username, and whoever reads it cannot test guesses offline
   * without the secret. (Rotating the secret starts the identifier counters afresh.)
   */
  async #digest(identifier: string): Promise<string> {
    // Stryker disable next-line BooleanLiteral: `extractable` only allows exporting the key, which nothing here does; the digests are the same either way.
    this.#key ??= crypto.subtle.importKey("raw", new TextEncoder().encode(`portcullis rate limit\u0000${this.secret}`), { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
    const bytes = new Uint8Array(await crypto.subtle.sign("HMAC", await this.#key, new TextEncoder().encode(identifier)))
    let hex = ""
    for (const b of bytes.subarray(0, 16)) hex += b.toString(16).padStart(2, "0")
    return hex
  }

  /**
   * Counts one request of `action` from `address`; refuses it once the address's count is
   * over the limit. No address (no trusted proxy header, none from the integration): not
   * counted per address, see `docs/rate-limiting.md`.
   */
  async checkAddress(action: RateLimitAction, address: string | undefined): Promise<void> {
    const rule = this.settings.perAddress[action]
    if (!rule) return
    if (address === undefined) {
      this.logLimiter.warn("rate-limit-no-address", action)
      return
    }
    if (this.settings.allowList.has(address)) return
    const counter = await this.#store(action, (store) => store.hit(`${action}:a:${addressBucket(address)}`, rule.window))
    if (counter && counter.count > rule.max) await this.#refuse({ action, limit: "address", address }, counter.resetMs)
  }

  /**
   * Counts one email of `kind` for `identifier` (a normalised address) against its mailbox
   * ({@link mailboxOf}: `victim+1@x` and `victim+2@x` are one inbox to flood); refuses over
   * the limit. Each kind has its own counter under the one `perIdentifier.email` rule, and
   * none shares the credentials lockout's: whoever requests sign-in links for a victim (each
   * of which works for her) cannot also stop her reset link, and the other way round.
   */
  async checkEmail(identifier: string, address: string | undefined, kind: MailKind = "signIn"): Promise<void> {
    const rule = this.settings.perIdentifier.email
    if (!rule || this.settings.allowList.has(identifier)) return
    const key = `${MAIL_COUNTERS[kind]}:${await this.#digest(mailboxOf(identifier))}`
    const counter = await this.#store("email", (store) => store.hit(key, rule.window))
    if (counter && counter.count > rule.max) await this.#refuse({ action: "email", limit: "identifier", identifier, address }, counter.resetMs)
  }

  /**
   * Reserves one credentials attempt for `identifier` before the password is checked, so
   * concurrent attempts cannot all slip under the limit: the attempt that makes the count
   * exceed `max` is refused, and so is every later one until the window ends (a right
   * password included — the attempt is refused before it is checked). Each time the limit
   * is reached again within a day, the lockout doubles (`window`, `2 × window`, …, up to
   * `maxLockout`). A successful sign-in gives back only its own attempt ({@link credentialsSucceeded}).
   */
  async checkCredentials(identifier: string | undefined, address: string | undefined): Promise<void> {
    const rule = this.settings.perIdentifier.credentials
    if (!rule || identifier === undefined || this.settings.allowList.has(identifier)) return
    const id = await this.#digest(identifier)
    const event = { action: "credentials", limit: "lockout", identifier, address } as const
    const lock = await this.#store("credentials", (store) => store.peek(`credentials:lock:${id}`))
    if (lock) return this.#refuse(event, lock.resetMs)
    const attempts = await this.#store("credentials", (store) => store.hit(`credentials:i:${id}`, rule.window))
    if (!attempts || attempts.count <= rule.max) return
    let wait = attempts.resetMs
    // The first refused attempt of a window is a strike; repeated strikes lock for longer.
    if (attempts.count === rule.max + 1) {
      const strikes = await this.#store("credentials", (store) => store.hit(`credentials:strikes:${id}`, STRIKE_WINDOW))
      if (strikes && strikes.count > 1) {
        const seconds = Math.min(rule.window * 2 ** (strikes.count - 1), rule.maxLockout)
        const locked = await this.#store("credentials", (store) => store.hit(`credentials:lock:${id}`, seconds))
        if (locked) wait = Math.max(wait, locked.resetMs)
      }
    }
    return this.#refuse(event, wait)
  }

  /**
   * A right password gives back the attempt it was counted as; the identifier's earlier
   * failures stay until their window ends. Clearing them would let anyone whose own account
   * folds to the same identifier (`ADA`, `ádá` where usernames differ by case or accent)
   * wipe a victim's count between guesses. Best effort.
   */
  async credentialsSucceeded(identifier: string | undefined): Promise<void> {
    const rule = this.settings.perIdentifier.credentials
    if (!rule || identifier === undefined) return
    const key = `credentials:i:${await this.#digest(identifier)}`
    try {
      // Only a counter that still exists is refunded: a new one at -1 would be a free attempt.
      if (await this.#bounded(this.settings.store.peek(key))) await this.#bounded(this.settings.store.hit(key, rule.window, -1))
    } catch (e) {
      this.#storeFailed("credentials", e)
    }
  }

  /**
   * Counts one two-factor code attempt (`POST /two-factor`) from `address` and for `userId`:
   * the address rule `perAddress.twoFactor`, and at most {@link TWO_FACTOR_PER_USER} codes per
   * user per window whatever the address, so guesses spread over many challenges and
   * addresses stay few. The user id is keyed by HMAC as identifiers are.
   */
  async checkTwoFactor(userId: string, address: string | undefined): Promise<void> {
    await this.checkAddress("twoFactor", address)
    const rule = TWO_FACTOR_PER_USER
    const key = `twoFactor:i:${await this.#digest(`user:${userId}`)}`
    const counter = await this.#store("twoFactor", (store) => store.hit(key, rule.window))
    if (counter && counter.count > rule.max) await this.#refuse({ action: "twoFactor", limit: "identifier", address }, counter.resetMs)
  }

  async #refuse(event: Omit<RateLimitedEvent, "retryAfter">, resetMs: number): Promise<never> {
    const retryAfter = Math.max(1, Math.ceil(resetMs / 1000))
    this.logLimiter.warn("rate-limited", `${event.action}:${event.limit}`, { action: event.action, limit: event.limit })
    await this.onLimited({ ...event, retryAfter })
    throw new RateLimited(`Too many ${event.action} requests (${event.limit} limit); retry in ${retryAfter} s`, retryAfter)
  }

  /** A store call, bounded by `timeout`; on failure `null` (fail open) or `ServiceUnavailable` (fail closed). */
  async #store<T>(action: RateLimitAction, call: (store: RateLimitStore) => Promise<T>): Promise<T | null> {
    try {
      const value = await this.#bounded(call(this.settings.store))
      const tracker = this.health.of("rate-limit store")
      if (tracker.failing) tracker.recovered()
      return value
    } catch (error) {
      this.#storeFailed(action, error)
      if (this.settings.failClosed.has(action)) {
        const failure = new ServiceUnavailable(`The rate-limit store failed; ${action} requests are refused until it answers`, error as Error)
        this.health.raised("rate-limit store", failure)
        throw failure
      }
      return null
    }
  }

  #storeFailed(action: RateLimitAction, error: unknown): void {
    this.logLimiter.warn("rate-limit-store-failed", action, { error: error instanceof Error ? error.message : String(error) })
  }

  #bounded<T>(promise: Promise<T>): Promise<T> {
    const ms = this.settings.timeout
    if (!ms) return promise
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`The rate-limit store did not answer within ${ms} ms`)), ms)
    })
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
  }
}

/** Longest identifier text worked on: a bound on the normalising, far past any real one. */
const MAX_IDENTIFIER_INPUT = 4 * 320
/** What the fold drops wherever it stands: combining marks and default-ignorable characters. */
const DROPPED = /[\p{M}\p{Default_Ignorable_Code_Point}]/gu

/**
 * The identifier a limit counts against, folded so that every spelling a lookup may take for
 * the same account shares one counter: Unicode NFKC (full-width letters), lower-cased (with
 * one sigma: `ς` and `σ` are one letter), then
 * without combining marks (`ádá`, and `İ`'s dot: MySQL/MariaDB's default collations compare
 * accents away) and without default-ignorable characters (soft hyphen, zero-width space:
 * invisible, and ignored by some collations), trimmed. Folding more than the app does only
 * makes two accounts share a counter; folding less would let one account have many.
 * `undefined` when there is none. Capped at 320 characters (the longest email address).
 *
 * A value that is not a string (a JSON body can send `["ada"]` or `12345`) counts by its
 * text: a lookup may well find the account from it (mysql2 expands `["ada"]` to `'ada'`),
 * so skipping it would skip the lockout.
 */
export function normaliseIdentifier(value: unknown): string | undefined {
  const text = identifierText(value)
  if (text === undefined) return undefined
  const folded = text
    // What the fold drops goes before the bound (one linear pass, over a body already
    // capped): 1,280 leading spaces, marks or soft hyphens in front of `ada` used to fill it
    // and fold to nothing, so the attempt counted against no identifier while a lookup that
    // trims, or a collation that compares them away, still found ada.
    .replace(DROPPED, "")
    .trimStart()
    .slice(0, MAX_IDENTIFIER_INPUT)
    .normalize("NFKC")
    .toLowerCase()
    .normalize("NFKD")
    .replace(DROPPED, "")
    .normalize("NFKC")
    // Lower-casing is the one context-dependent step: `Σ` becomes `ς` at the end of a word
    // and `σ` elsewhere, and NFKC turns the lunate `ϲ` (U+03F2) into `ς` while its capital
    // `Ϲ` (U+03F9) becomes `Σ`. A lookup that lower-cases `Ϲ` first finds `ϲ`'s user; so one
    // sigma here, or each spelling had its own guesses.
    .replace(/ς/g, "σ")
    .trim()
    .slice(0, 320)
  return folded || undefined
}

/**
 * The text of a submitted identifier: strings as they are, other JSON values as their text.
 * An array's items are read one level deep only, and a value with no text (too deep for
 * `JSON.stringify`, circular) counts as one shared placeholder: never a recursion a
 * client's nesting can overflow, and never an identifier-free pass around the counter.
 */
function identifierText(value: unknown): string | undefined {
  if (typeof value === "string") return value
  if (value === null || value === undefined) return undefined
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value)
  if (Array.isArray(value)) return value.map((item) => (typeof item === "object" && item !== null ? jsonText(item) : identifierText(item)) ?? "").join(",")
  return jsonText(value)
}

const jsonText = (value: object): string => {
  try {
    return JSON.stringify(value) ?? UNREADABLE_IDENTIFIER
  } catch {
    return UNREADABLE_IDENTIFIER
  }
}

/** The identifier every value without a text shares (one counter for all of them). */
const UNREADABLE_IDENTIFIER = "\u0000unreadable"

/**
 * The mailbox an email address delivers to, as the per-recipient limit counts it: without
 * a plus-tag (`victim+news@x` → `victim@x`), folded as {@link normaliseIdentifier} folds.
 * Only the counter uses it; the link still goes to the address as typed. Folding more than
 * a mail server does only makes two mailboxes share a counter.
 */
export function mailboxOf(address: string): string {
  const at = address.lastIndexOf("@")
  if (at < 0) return normaliseIdentifier(address) ?? address
  const local = address.slice(0, at).split("+")[0]!
  return normaliseIdentifier(`${local}${address.slice(at)}`) ?? address
}

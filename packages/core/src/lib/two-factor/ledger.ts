/**
 * The two-factor caps every instance must agree on: codes per challenge (5), wrong codes
 * per user (10 per 15 minutes, sign-in and enrollment together), and "one challenge, one
 * session". A cap kept in one process's memory multiplies by the number of instances (and
 * by restarts), so each is kept in the adapter:
 *
 * - Counting is a row of claim slots (`<key>:1` … `<key>:<max>`), each taken with the
 *   adapter's lock (`acquireLock`: "set if absent, with an expiry", one atomic operation in
 *   every store that has it). An attempt takes a free slot *before* its code is judged, so
 *   concurrent guesses cannot all slip under the cap; with every slot taken the attempt is
 *   refused unjudged. A code that is no guess (it passed, or was right but lost the race
 *   to be used) gives its user slot back; wrong codes hold theirs until the window ends.
 * - The single use of a challenge is a verification token written when the challenge is
 *   issued and taken with `useVerificationToken` when its code passes (atomic and single-use
 *   in every adapter): of copies of one challenge on any number of instances, one signs in.
 *
 * An adapter without `acquireLock` (the Xata adapter) counts in this process instead
 * (bounded: `MemoryRefreshLock` in lib/tokens/lock.ts); the single use still holds everywhere.
 * @module
 */
import { RateLimited } from "../../errors.js"
import { sha256Hex } from "../crypto.js"
import type { Adapter } from "../../adapters.js"
import type { RefreshLock } from "../tokens/lock.js"
import { twoFactorChallengeIdentifier } from "../verification-identifiers.js"

/** The adapter methods the single use of a challenge needs (every two-factor store has them). */
export type SpendStore = Required<Pick<Adapter, "createVerificationToken" | "useVerificationToken">>

/** Codes one challenge allows before the user must start again. */
export const MAX_ATTEMPTS = 5

/** Wrong codes one user may send per {@link USER_WINDOW}, over every challenge and the enrollment API. */
export const MAX_WRONG_PER_USER = 10

/** Seconds a wrong code counts against its user. */
export const USER_WINDOW = 15 * 60

/**
 * How long a challenge's slots outlive it, in milliseconds: instances whose clocks differ by
 * up to this much still see them.
 */
const CLOCK_MARGIN = 60_000

/** A slot an attempt holds: given back when its code passes. */
export interface Claim {
  key: string
  owner: string
  /** 1 for the first attempt, up to the cap. */
  count: number
}

/** The challenge fields the ledger needs. */
export interface ChallengeRef {
  id: string
  userId: string
  /** Epoch milliseconds. */
  until: number
}

export class TwoFactorLedger {
  constructor(
    private readonly claims: RefreshLock,
    private readonly store: SpendStore,
  ) {}

  /**
   * Records a new challenge as unspent, in the store every instance reads: its code can
   * sign in once ({@link spend}).
   */
  async issue(challenge: ChallengeRef): Promise<void> {
    await this.store.createVerificationToken({
      identifier: twoFactorChallengeIdentifier(challenge.userId),
      token: await spendToken(challenge.id),
      expires: new Date(challenge.until),
    })
  }

  /**
   * Takes one of the challenge's {@link MAX_ATTEMPTS} attempts; `undefined` when all are
   * taken, on any instance (the challenge is used up).
   */
  challengeAttempt(challenge: ChallengeRef, now = Date.now()): Promise<Claim | undefined> {
    const ttl = Math.max(1, challenge.until - now) + CLOCK_MARGIN
    return this.#claim(`two-factor:challenge:${challenge.id}`, MAX_ATTEMPTS, ttl)
  }

  /**
   * Takes one of the user's {@link MAX_WRONG_PER_USER} code slots for the next
   * {@link USER_WINDOW} seconds; `undefined` when all are held: the user is locked out of
   * every code (the right one too) until the oldest wrong code is forgotten
   * ({@link lockedOut}).
   */
  async userAttempt(userId: string): Promise<Claim | undefined> {
    const key = `two-factor:user:${(await sha256Hex(`portcullis-two-factor-user:${userId}`)).slice(0, 32)}`
    return this.#claim(key, MAX_WRONG_PER_USER, USER_WINDOW * 1000)
  }

  /** Gives a slot back (its code passed). */
  async release(claim: Claim): Promise<void> {
    await this.claims.release(claim.key, claim.owner)
  }

  /**
   * Spends the challenge, atomically in the shared store: `true` for the one caller that
   * finds it unspent, `false` for every later or concurrent copy on any instance.
   */
  async spend(challenge: ChallengeRef): Promise<boolean> {
    const token = await this.store.useVerificationToken({ identifier: twoFactorChallengeIdentifier(challenge.userId), token: await spendToken(challenge.id) })
    return token !== null && token !== undefined
  }

  /**
   * The first free slot of `prefix`, taken; `undefined` when all `max` are held. Slots are
   * tried in order, so the slot taken is also the attempt's number while none expired. A
   * second pass finds slots given back behind the first (concurrent right codes release
   * theirs while this attempt walks on); however many pass, at most `max` are ever held.
   */
  async #claim(prefix: string, max: number, ttlMs: number): Promise<Claim | undefined> {
    const owner = crypto.randomUUID()
    for (let pass = 0; pass < 2; pass++) {
      for (let count = 1; count <= max; count++) {
        const key = `${prefix}:${count}`
        if (await this.claims.acquire(key, owner, ttlMs)) return { key, owner, count }
      }
    }
    return undefined
  }
}

/** The refusal of a code while its user is locked out (429 with `Retry-After`, or thrown by the enrollment API). */
export function lockedOut(userId: string): RateLimited {
  return new RateLimited(`Two-factor codes of user ${userId} are locked: ${MAX_WRONG_PER_USER} wrong codes within ${USER_WINDOW / 60} minutes`, USER_WINDOW)
}

/**
 * The token a challenge is recorded under: a digest of its id, so the store holds nothing
 * that could be matched to a cookie's contents.
 */
function spendToken(id: string): Promise<string> {
  return sha256Hex(`portcullis-two-factor-challenge:${id}`)
}


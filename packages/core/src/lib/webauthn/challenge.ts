import { InvalidCheck } from "../../errors.js"
import { WebAuthnVerificationError } from "./errors.js"
import type { Cookie } from "../../types.js"
import { openCheck, sealCheck } from "../checks.js"
import type { RequestContext } from "../context.js"

/** Which ceremony a challenge was issued for; a challenge never serves the other one. */
export type Ceremony = "register" | "authenticate"

/** Who a registration is for: the signed-in user adding a passkey, or a new user. */
export type Registrant = { userId: string } | { email: string; name?: string }

/** What the challenge cookie carries besides the challenge itself. */
export interface ChallengeState {
  ceremony: Ceremony
  /** Registration: who the new credential is for. */
  registrant?: Registrant
  /** Authentication for a named user: the credential must be theirs. */
  expectedUserId?: string
}

/** Slack on top of the ceremony timeout for the network round trips around it. */
const GRACE_MS = 60_000

/**
 * Seals the challenge into the encrypted, provider-bound `webauthnChallenge` cookie. The
 * cookie itself lives 15 minutes (all check cookies do); the challenge inside is only
 * accepted until the ceremony's own timeout (plus a minute), so it expires "at about the
 * ceremony timeout" as WebAuthn asks.
 */
export function sealChallenge(ctx: RequestContext, providerId: string, challenge: string, state: ChallengeState, timeoutMs: number): Promise<Cookie> {
  const until = Date.now() + timeoutMs + GRACE_MS
  return sealCheck(ctx, "webauthnChallenge", challenge, providerId, { data: { webauthn: { ...state, until } } })
}

/**
 * Opens the challenge cookie for `ceremony` and queues its deletion (the browser can use
 * it once). Because the cookie is the only record of the challenge, a captured cookie
 * could be replayed from another client; {@link consumed} closes that window within this
 * process, and the signature counter closes it across processes for authenticators that
 * count. Every failure is the same client-facing {@link WebAuthnVerificationError}.
 */
export async function openChallenge(ctx: RequestContext, providerId: string, ceremony: Ceremony): Promise<{ challenge: string; state: ChallengeState }> {
  let opened: Awaited<ReturnType<typeof openCheck>>
  try {
    opened = await openCheck(ctx, "webauthnChallenge", providerId)
  } catch (error) {
    if (error instanceof InvalidCheck) throw new WebAuthnVerificationError("The passkey challenge is missing or expired; start again", error)
    throw error
  }
  const state = opened.data.webauthn as (ChallengeState & { until?: unknown }) | undefined
  if (!state || typeof state.until !== "number" || state.until < Date.now()) {
    throw new WebAuthnVerificationError("The passkey challenge has expired; start again")
  }
  if (state.ceremony !== ceremony) {
    throw new WebAuthnVerificationError(`The passkey challenge was issued for ${state.ceremony}, not ${ceremony}`)
  }
  if (!consumed.claim(opened.value, state.until)) {
    throw new WebAuthnVerificationError("The passkey challenge was already used")
  }
  return { challenge: opened.value, state }
}

/**
 * Challenges already answered in this process, until they would have expired anyway.
 * Bounded: when full, the entries closest to expiry go first.
 */
class ConsumedChallenges {
  readonly #until = new Map<string, number>()
  constructor(readonly limit: number) {}

  /** Records `challenge`; `false` when it was already recorded (a replay). */
  claim(challenge: string, until: number): boolean {
    const now = Date.now()
    if ((this.#until.get(challenge) ?? 0) > now) return false
    if (this.#until.size >= this.limit) this.#prune(now)
    this.#until.set(challenge, until)
    return true
  }

  #prune(now: number) {
    for (const [key, until] of this.#until) if (until <= now) this.#until.delete(key)
    // Still full: drop the oldest insertions, which expire first (timeouts are similar).
    for (const key of this.#until.keys()) {
      if (this.#until.size < this.limit) break
      this.#until.delete(key)
    }
  }
}

const consumed = new ConsumedChallenges(50_000)

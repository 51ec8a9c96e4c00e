import { InvalidCheck } from "../../errors.js"
import { WebAuthnVerificationError } from "./errors.js"
import type { Cookie } from "../../base-types.js"
import { openCheck, sealCheck } from "../checks.js"
import type { RequestContext } from "../context.js"
import { hmacSha256Hex } from "../crypto.js"
import { store } from "../config/stores.js"
import { webauthnChallengeIdentifier } from "../verification-identifiers.js"

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

/** A challenge read back from its cookie: checked, but not yet claimed. */
export interface OpenedChallenge {
  providerId: string
  challenge: string
  state: ChallengeState
  /** When the challenge stops being accepted (ms since the epoch). */
  until: number
}

/** Slack on top of the ceremony timeout for the network round trips around it. */
const GRACE_MS = 60_000

/**
 * What the adapter stores for a challenge: an HMAC under the secret, so the table holds
 * nothing a reader could match to a cookie or an options response without the secret.
 */
function challengeToken(secret: string, providerId: string, challenge: string): Promise<string> {
  return hmacSha256Hex(secret, `${webauthnChallengeIdentifier(providerId)}:${challenge}`)
}

/**
 * Issues a challenge: records it through the adapter's verification tokens (shared by
 * every process that uses the same database) and seals it into the encrypted,
 * provider-bound `webauthnChallenge` cookie. The cookie itself lives 15 minutes (all check
 * cookies do); the challenge is only accepted until the ceremony's own timeout plus a
 * minute, so it expires "at about the ceremony timeout" as WebAuthn asks, and its record
 * carries that expiry (stores with native expiry drop it then).
 */
export async function issueChallenge(ctx: RequestContext, providerId: string, challenge: string, state: ChallengeState, timeoutMs: number): Promise<Cookie> {
  const until = Date.now() + timeoutMs + GRACE_MS
  await store(ctx.config.stores, "webauthn").createVerificationToken({
    identifier: webauthnChallengeIdentifier(providerId),
    token: await challengeToken(ctx.config.secrets[0]!, providerId, challenge),
    expires: new Date(until),
  })
  return sealCheck(ctx, "webauthnChallenge", challenge, providerId, { data: { webauthn: { ...state, until } } })
}

/**
 * Opens the challenge cookie for `ceremony` and queues its deletion (the browser uses it
 * once). Nothing is claimed yet: a response that fails verification must not burn the
 * challenge, or whoever captured a cookie could void the genuine response by posting
 * garbage first. Every failure is the same client-facing {@link WebAuthnVerificationError}.
 */
export async function openChallenge(ctx: RequestContext, providerId: string, ceremony: Ceremony): Promise<OpenedChallenge> {
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
  const { until, ...rest } = state
  return { providerId, challenge: opened.value, state: rest, until }
}

/**
 * Claims a challenge whose response has just verified: takes its record out of storage in
 * one atomic step (`useVerificationToken`), so of any number of submissions of one valid
 * response — replays, parallel requests, other processes — exactly one gets past here.
 * An unknown record (never issued by this site, or already claimed) is refused.
 *
 * Each secret is tried in turn, newest first: a challenge issued just before a secret
 * rotation was recorded under the previous one.
 */
export async function claimChallenge(ctx: RequestContext, opened: OpenedChallenge): Promise<void> {
  const adapter = store(ctx.config.stores, "webauthn")
  const identifier = webauthnChallengeIdentifier(opened.providerId)
  for (const secret of ctx.config.secrets) {
    const token = await challengeToken(secret, opened.providerId, opened.challenge)
    const record = await adapter.useVerificationToken({ identifier, token })
    if (!record) continue
    // Adapters differ on expiry (some return expired rows): check here too.
    if (!(record.expires instanceof Date) || record.expires.getTime() < Date.now()) break
    return
  }
  throw new WebAuthnVerificationError("The passkey challenge is unknown or was already used")
}

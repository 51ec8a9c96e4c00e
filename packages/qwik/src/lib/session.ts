/**
 * What the `onRequest` hook keeps for `useSession`: the session, or the outage that kept it
 * from being read. Kept apart from the package entry so it can be tested without Qwik City.
 * @module
 */
import type { Session } from "@portcullis/core"
import { ServiceUnavailable } from "@portcullis/core/errors"

/** The outcome of the per-request session read. */
export type SessionSlot = { session: Session | null } | { unavailable: ServiceUnavailable }

/**
 * Runs `read` and keeps an outage as a value: the hook runs for every page, public ones
 * too, and must not fail them all while the store is down. Other errors still throw.
 */
export async function loadSessionSlot(read: () => Promise<Session | null>): Promise<SessionSlot> {
  try {
    return { session: await read() }
  } catch (error) {
    if (error instanceof ServiceUnavailable) return { unavailable: error }
    throw error
  }
}

/** The session in `slot`, `null` without one; `onOutage` decides what an outage becomes. */
export function sessionOf(slot: SessionSlot | undefined, onOutage: (error: ServiceUnavailable) => never): Session | null {
  if (!slot) return null
  if ("unavailable" in slot) return onOutage(slot.unavailable)
  return slot.session
}

/**
 * The `rateLimited` and `lockout` audit events, wired into the rate limiter by the
 * configuration (`config/resolve.ts`): a module of its own so the resolver imports nothing
 * that imports the request context.
 * @module
 */
import type { EventCallbacks } from "../../types.js"
import { noopEvent } from "../config/noop-event.js"
import { hmacSha256Hex } from "../crypto.js"
import type { RateLimitedEvent } from "../rate-limit/limiter.js"
import type { Telemetry } from "../telemetry/index.js"

/**
 * The rate limiter's refusal handler: the `rateLimited` event as before, then the audit event
 * (`lockout` for a credentials lockout, else `rateLimited`). The identifier is an email
 * address or a username: the audit event carries its HMAC under the newest secret instead,
 * stable enough to group trips by, useless to whoever reads the trail without the secret.
 *
 * One audit event per trip, not per refused request: while a refusal lasts (its
 * `retryAfter`), the same limit refusing the same address and identifier again is no new
 * event. A refused request costs the server next to nothing — that is the limiter's point —
 * and an audit record per refusal would make it one stored row each, a trail that grows with
 * the attacker's request rate rather than with what happened.
 */
export function rateLimitAudit(events: EventCallbacks, secret: string, telemetry?: Telemetry): (event: RateLimitedEvent) => Promise<void> {
  const trips = new TripMemo()
  return async (event) => {
    await events.rateLimited(event)
    if (event.limit === "lockout") telemetry?.audited({ type: "lockout" })
    if (events.audit === noopEvent) return
    const identifier = event.identifier === undefined ? undefined : (await hmacSha256Hex(`portcullis audit identifier\u0000${secret}`, event.identifier)).slice(0, 32)
    if (!trips.first([event.action, event.limit, event.address ?? "", identifier ?? ""].join("\u0000"), event.retryAfter * 1000)) return
    await events.audit({
      id: crypto.randomUUID(),
      time: new Date().toISOString(),
      type: event.limit === "lockout" ? "lockout" : "rateLimited",
      outcome: "failure",
      ...(event.address && { ip: event.address }),
      details: { action: event.action, limit: event.limit, retryAfter: event.retryAfter, ...(identifier && { identifier }) },
    })
  }
}

/** Trips remembered at most: past it the oldest is forgotten (and its next refusal recorded again). */
const TRIPS_MAX = 10_000

/** The trips this runtime recorded, each until its refusal ends: a bounded map. */
class TripMemo {
  readonly #until = new Map<string, number>()

  /** Whether `key` starts a trip now (and remember it for `ms`), `false` while its last one lasts. */
  first(key: string, ms: number, now = Date.now()): boolean {
    const until = this.#until.get(key)
    if (until !== undefined && until > now) return false
    this.#until.delete(key)
    // Full: forget the trip remembered longest (keys are in insertion order), in O(1) — many
    // addresses tripping at once must not make each refusal a sweep. At worst that trip is
    // recorded a second time.
    if (this.#until.size >= TRIPS_MAX) this.#until.delete(this.#until.keys().next().value!)
    this.#until.set(key, now + ms)
    return true
  }
}

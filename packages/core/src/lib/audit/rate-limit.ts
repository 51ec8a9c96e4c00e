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
 */
export function rateLimitAudit(events: EventCallbacks, secret: string, telemetry?: Telemetry): (event: RateLimitedEvent) => Promise<void> {
  return async (event) => {
    await events.rateLimited(event)
    if (event.limit === "lockout") telemetry?.audited({ type: "lockout" })
    if (events.audit === noopEvent) return
    const identifier = event.identifier === undefined ? undefined : (await hmacSha256Hex(`portcullis audit identifier\u0000${secret}`, event.identifier)).slice(0, 32)
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

/**
 * The audit trail's event stream (docs/observability.md, "Audit events"): one `audit` event
 * per security-relevant outcome, filled in here with what every event carries — its id, its
 * time, and from a request the client address and user agent — so each call site stays one
 * line at the point the outcome is known:
 *
 * `await audit(ctx, { type: "passwordChanged", outcome: "success", userId })`
 *
 * Nothing here throws into a flow: the handler is wrapped like every event (`wrapEvents`).
 * Call sites pass ids, provider names and error types only, never a token, password, code
 * or secret. Rate-limit trips are emitted by `rate-limit.ts`, which the configuration
 * wires into the limiter.
 * @module
 */
import { AuthError } from "../../errors.js"
import type { EventCallbacks } from "../../types.js"
import type { ResolvedConfig } from "../config/resolved.js"
import { noopEvent } from "../config/noop-event.js"
import type { RequestContext } from "../context.js"
import { causeOfError } from "../report.js"
import type { AuditEvent } from "./events.js"

export type { AuditEvent } from "./events.js"

/** An event as a call site gives it: everything but what {@link audit} fills in. */
export type AuditInput = AuditEvent extends infer E ? (E extends AuditEvent ? Omit<E, "id" | "time"> : never) : never

/** Where an event happens: a request (its address and agent are recorded), or a server function's configuration. */
export type AuditSource = ResolvedConfig | (Pick<RequestContext, "config"> & Partial<Pick<RequestContext, "clientAddress" | "headers">>)

/** The longest `User-Agent` kept: a client may send kilobytes, a row should not grow with it. */
const USER_AGENT_MAX = 512

/** Emits one audit event; nothing when the app did not subscribe. Never throws. */
export async function audit(source: AuditSource, input: AuditInput): Promise<void> {
  const ctx = "config" in source ? source : undefined
  const config = ctx ? ctx.config : (source as ResolvedConfig)
  // The sign-in, lockout and second-factor counters come from the audit events: one set of
  // call sites for both, and counted whether or not the app subscribed to the stream.
  config.telemetry.audited(input)
  if (config.events.audit === noopEvent) return
  const userAgent = ctx?.headers?.get("user-agent")
  await config.events.audit({
    id: crypto.randomUUID(),
    time: new Date().toISOString(),
    ...(ctx?.clientAddress && { ip: ctx.clientAddress }),
    ...(userAgent && { userAgent: userAgent.slice(0, USER_AGENT_MAX) }),
    ...input,
  } as AuditEvent)
}

/**
 * The `signInFailed` event of a refused sign-in attempt — a credentials or password
 * callback, a magic link, an OAuth or passkey callback, a second-factor code — by the
 * error's type. Only refusals the client caused (`lib/report.ts`): an outage or a bug is not
 * the user's failure, and a rate limit has its own event (from the limiter).
 */
export async function auditRefusal(ctx: RequestContext, error: unknown): Promise<void> {
  if ((ctx.config.events.audit === noopEvent && !ctx.config.telemetry.metering) || !(error instanceof AuthError)) return
  const attempt = signInAttempt(ctx)
  if (!attempt || causeOfError(error) !== "client") return
  await audit(ctx, { type: "signInFailed", outcome: "failure", reason: error.type, ...attempt })
}

/** How the request tried to sign in, or `undefined` when it was no sign-in attempt. */
function signInAttempt(ctx: RequestContext): { method?: string; provider?: string } | undefined {
  if (ctx.action === "two-factor" && ctx.method === "POST") return { method: "twoFactor" }
  if (ctx.action !== "callback") return undefined
  const provider = ctx.providerId === undefined ? undefined : ctx.config.providerById.get(ctx.providerId)
  return provider ? { method: provider.type, provider: provider.id } : {}
}

/** What the `sessionRevoked` event says. */
type Revocation = Parameters<EventCallbacks["sessionRevoked"]>[0]

/**
 * Fires `sessionRevoked` and its audit event, at every place sessions are revoked. The audit
 * event counts the sessions rather than listing their ids: the trail needs how many, not
 * which.
 */
export async function sessionsRevoked(source: AuditSource, message: Revocation): Promise<void> {
  const config = "config" in source ? source.config : (source as ResolvedConfig)
  await config.events.sessionRevoked(message)
  await audit(source, { type: "sessionRevoked", outcome: "success", userId: message.userId, details: { scope: message.scope, count: message.sessionIds.length, strategy: message.strategy } })
}

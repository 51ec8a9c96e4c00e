/**
 * Shared pieces of the audit-event tests (issue 29): a recorder for the `audit` event, a
 * browser that arrives from a known client address with a known user agent, and the list of
 * every value a run used that no event may ever hold.
 */
import type { AuthConfig, AuthRuntime } from "@portcullis/core"
import type { AuditQuery } from "@portcullis/core/adapters"
import { auditTrail } from "@portcullis/core/integration"
import type { AuditEvent } from "@portcullis/core/types"
import { expect } from "vitest"
import { Browser, type Transport } from "../helpers.js"

/** The address every audited browser arrives from (as an integration passes the socket's). */
export const IP = "198.51.100.23"
/** The user agent every audited browser sends. */
export const AGENT = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"

/** Every event any test of the suite recorded, and every secret it used: the last test scans one for the other. */
export const everyEvent: AuditEvent[] = []
export const everySecret = new Set<string>()

/** Notes values a test used that must never appear in an event (passwords, codes, tokens, cookies). */
export function secret(...values: (string | undefined)[]): void {
  for (const value of values) if (value && value.length >= 6) everySecret.add(value)
}

/** The `audit` event, recorded (and kept for the secrets scan). */
export function auditLog() {
  const events: AuditEvent[] = []
  return {
    events,
    audit: (event: AuditEvent) => {
      events.push(event)
      everyEvent.push(event)
    },
    types: () => events.map((e) => e.type),
    of: <T extends AuditEvent["type"]>(type: T) => events.filter((e): e is Extract<AuditEvent, { type: T }> => e.type === type),
  }
}

/** A browser on `auth` from {@link IP} with {@link AGENT}; it keeps every cookie it is given as a secret. */
export function auditedBrowser(auth: AuthRuntime, origin = "http://localhost:3000"): Browser {
  return new Browser(auditedTransport(auth), origin)
}

/** Requests to `auth` from {@link IP} with {@link AGENT}; every cookie it answers is kept as a secret. */
export function auditedTransport(auth: AuthRuntime): Transport {
  return async (request) => {
    const headers = new Headers(request.headers)
    headers.set("user-agent", AGENT)
    const response = await auth.handle(new Request(request, { headers }), { clientAddress: IP })
    for (const cookie of response.headers.getSetCookie()) secret(decodeURIComponent(cookie.split(";")[0]!.split("=").slice(1).join("=")))
    return response
  }
}

/** What every event recorded from a request carries besides its own fields. */
export const fromTheBrowser = {
  id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
  time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  ip: IP,
  userAgent: AGENT,
}

/** Every record a query pages through, 100 at a time, following each page's cursor. */
export async function everyPage(config: AuthConfig, query: AuditQuery = {}): Promise<AuditEvent[]> {
  const out: AuditEvent[] = []
  let page = await auditTrail(config, { ...query, limit: 100 })
  out.push(...page.records)
  while (page.next) {
    page = await auditTrail(config, { ...query, limit: 100, cursor: page.next })
    out.push(...page.records)
  }
  return out
}

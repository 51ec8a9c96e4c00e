/**
 * Storage exhaustion through the audit trail (issue 29): forged sign-ins at volume from one
 * address, each refused. The rate limiter makes a refused request cheap — no password hash,
 * no store read — so the trail must not turn each one into a stored row: the trail grows by
 * one record per trip of a limit, not by one per request the attacker sends.
 */
import { describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { AuditEvent } from "@portcullis/core/adapters"
import { auditTrail } from "@portcullis/core/integration"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../../helpers.js"
import { LIGHT, passwordSignIn } from "../../password/support.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

/** A password app with the default rate limits, its trail stored in memory and streamed to `streamed`. */
function app(rateLimit: AuthConfig["rateLimit"] = {}) {
  const streamed: AuditEvent[] = []
  const rateLimited: unknown[] = []
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter: MemoryAdapter(),
    providers: [Password({ hashing: LIGHT })],
    rateLimit,
    logger: quiet,
    events: { audit: (event) => void streamed.push(event), rateLimited: (event) => void rateLimited.push(event) },
  }
  const auth = createAuth(config)
  const attack = (address: string, email: string) => passwordSignIn(new Browser((request) => auth.handle(request, { clientAddress: address })), { email, password: "a forged guess" })
  const stored = async () => {
    const out: AuditEvent[] = []
    let page = await auditTrail(config, { limit: 100 })
    out.push(...page.records)
    while (page.next) {
      page = await auditTrail(config, { limit: 100, cursor: page.next })
      out.push(...page.records)
    }
    return out
  }
  return { attack, stored, streamed, rateLimited }
}

const count = (records: AuditEvent[]) => {
  const out: Record<string, number> = {}
  for (const r of records) out[r.type] = (out[r.type] ?? 0) + 1
  return out
}

describe("forged sign-ins at volume from one address", () => {
  it("store one record per trip of a limit: 300 requests on 3 identifiers are 15 failures, 3 lockouts and 1 address limit", { timeout: 120_000 }, async () => {
    const { attack, stored, streamed, rateLimited } = app()
    for (let i = 0; i < 300; i++) await attack("203.0.113.1", `victim${i % 3}@example.com`)
    // Every refusal still reaches the rateLimited event (and the metrics): only the trail is per trip.
    expect(rateLimited.length).toBe(300 - 15)
    expect(count(await stored())).toEqual({ signInFailed: 15, lockout: 3, rateLimited: 1 })
    expect(count(streamed)).toEqual({ signInFailed: 15, lockout: 3, rateLimited: 1 })
  })

  it("a trip of another address or another identifier is recorded, each once", { timeout: 120_000 }, async () => {
    const { attack, stored } = app({ perAddress: { credentials: { max: 2, window: 60 } } })
    for (const address of ["203.0.113.1", "203.0.113.2", "2001:db8::7"]) for (let i = 0; i < 10; i++) await attack(address, `${address}-user@example.com`)
    const trips = (await stored()).filter((r) => r.type === "rateLimited")
    expect(trips.map((r) => r.ip).sort()).toEqual(["2001:db8::7", "203.0.113.1", "203.0.113.2"])
  })
})

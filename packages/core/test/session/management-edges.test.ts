/**
 * Session management (`lib/session/manage.ts`) at its edges: what an app is told when it
 * cannot manage sessions or the request has none, a session at the very millisecond it
 * expires, an id that is no session id (never handed to the app's registry), and what a
 * revocation of a database session tells the app and the browser.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { NotSignedIn, SessionManagementUnsupported } from "@portcullis/core/errors"
import type { AdapterSession } from "@portcullis/core/adapters"
import { listSessions, revokeOtherSessions, revokeSession, type SessionRequest } from "@portcullis/core/integration"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import type { Browser } from "../helpers.js"
import { config as baseConfig, ORIGIN, signedIn } from "./management-support.js"

const quiet = { error() {}, warn() {}, debug() {} }
const config = (session: AuthConfig["session"], extra: Partial<AuthConfig> = {}) => baseConfig(session, { logger: quiet, ...extra })

async function asRequest(browser: Browser): Promise<SessionRequest> {
  return { origin: ORIGIN, headers: new Headers({ cookie: browser.cookieHeader() }), csrfToken: await browser.csrfToken() }
}

afterEach(() => vi.useRealTimers())

describe("what the app is told when JWT sessions cannot be managed", () => {
  it("without a registry: that session.registry is needed", async () => {
    const cfg = config({ strategy: "jwt" })
    const ada = await signedIn(cfg)
    const listing = listSessions(await asRequest(ada), cfg)
    await expect(listing).rejects.toThrow(SessionManagementUnsupported)
    await expect(listing).rejects.toThrow("JWT sessions can be listed and revoked only with a session registry: set session.registry (docs/sessions.md)")
  })

  it("without a valid session in the request: that there is none", async () => {
    const cfg = config({ strategy: "jwt", registry: new MemorySessionRegistry() })
    for (const cookie of ["", "authjs.session-token=not-a-token"]) {
      const listing = listSessions({ origin: ORIGIN, headers: new Headers({ cookie }) }, cfg)
      await expect(listing).rejects.toThrow(NotSignedIn)
      await expect(listing).rejects.toThrow("No valid session in this request")
    }
  })
})

describe("a registry record at the millisecond it expires", () => {
  it("is not listed: a session is over at its expiry", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T10:00:00Z") })
    /** A registry that also answers one record of the user's expiring right now. */
    class WithExpiring extends MemorySessionRegistry {
      override async list(userId: string) {
        const now = new Date(Date.now())
        return [...(await super.list(userId)), { id: "e".repeat(32), userId, createdAt: now, lastSeenAt: now, expires: now, userAgent: "Expiring/1.0" }]
      }
    }
    const cfg = config({ strategy: "jwt", registry: new WithExpiring() })
    const ada = await signedIn(cfg, "ada", "Laptop/1.0")
    expect((await listSessions(await asRequest(ada), cfg)).map((s) => s.userAgent)).toEqual(["Laptop/1.0"])
  })
})

describe("revoking by an id that is no session id", () => {
  it("revokes nothing and never hands the id to the registry", async () => {
    /** A registry that records what it is asked to remove. */
    class Recording extends MemorySessionRegistry {
      readonly removed: string[][] = []
      override async remove(userId: string, ids: string[]) {
        this.removed.push(ids)
        return super.remove(userId, ids)
      }
    }
    const registry = new Recording()
    const cfg = config({ strategy: "jwt", registry })
    const ada = await signedIn(cfg)
    for (const id of ["%", "*", "E".repeat(32), "e".repeat(31), ""]) {
      expect(await revokeSession({ ...(await asRequest(ada)), id }, cfg), id).toBe(false)
    }
    expect(registry.removed).toEqual([])
  })
})

describe("what the app is told when database sessions cannot be managed", () => {
  it("with an adapter that has no listSessions (an Auth.js adapter): that listSessions is needed", async () => {
    const cfg = config({ strategy: "database" }, { adapter: { ...MemoryAdapter(), listSessions: undefined } })
    const ada = await signedIn(cfg)
    const listing = listSessions(await asRequest(ada), cfg)
    await expect(listing).rejects.toThrow(SessionManagementUnsupported)
    await expect(listing).rejects.toThrow("The adapter has no listSessions, which listing and revoking database sessions needs (an Auth.js adapter does not have it; see docs/adapters.md)")
  })

  it("without a valid session in the request: that there is none", async () => {
    const cfg = config({ strategy: "database" }, { adapter: MemoryAdapter() })
    for (const cookie of ["", "authjs.session-token=no-such-row"]) {
      const listing = listSessions({ origin: ORIGIN, headers: new Headers({ cookie }) }, cfg)
      await expect(listing).rejects.toThrow(NotSignedIn)
      await expect(listing).rejects.toThrow("No valid session in this request")
    }
  })
})

describe("the request's own database row, from an adapter that returns rows whatever their expiry (as Auth.js allows)", () => {
  /** The memory adapter, but reading back every row it created, expired or not. */
  function unfilteredAdapter() {
    const base = MemoryAdapter()
    const rows = new Map<string, AdapterSession>()
    return {
      ...base,
      async createSession(session: AdapterSession) {
        rows.set(session.sessionToken, { ...session })
        return base.createSession!(session)
      },
      async getSessionAndUser(token: string) {
        const row = rows.get(token)
        const user = row && (await base.getUser!(row.userId))
        return row && user ? { session: { ...row }, user } : null
      },
    }
  }

  it("is over at the very millisecond of its expiry, and after: no session to manage", async () => {
    const start = new Date("2026-11-28T10:00:00Z")
    vi.useFakeTimers({ toFake: ["Date"], now: start })
    const cfg = config({ strategy: "database", maxAge: 3600, updateAge: 3600 }, { adapter: unfilteredAdapter() })
    const ada = await signedIn(cfg)
    const request = await asRequest(ada)
    vi.setSystemTime(start.getTime() + 3600_000 - 1)
    expect(await listSessions(request, cfg)).toHaveLength(1)
    for (const at of [start.getTime() + 3600_000, start.getTime() + 3601_000]) {
      vi.setSystemTime(at)
      await expect(listSessions(request, cfg)).rejects.toThrow(NotSignedIn)
    }
  })
})

describe("revoking database sessions", () => {
  it("by an id that names none of the user's sessions revokes nothing and clears no cookie", async () => {
    const cfg = config({ strategy: "database" }, { adapter: MemoryAdapter() })
    const ada = await signedIn(cfg)
    const set: string[] = []
    for (const id of ["0".repeat(32), "not-an-id"]) {
      expect(await revokeSession({ ...(await asRequest(ada)), id }, cfg, (cookie) => void set.push(cookie.name)), id).toBe(false)
    }
    expect(set).toEqual([])
    expect(await listSessions(await asRequest(ada), cfg)).toHaveLength(1)
  })

  it("the others tells the app which were revoked (sessionRevoked)", async () => {
    const events: unknown[] = []
    const cfg = config({ strategy: "database" }, { adapter: MemoryAdapter(), events: { sessionRevoked: (message) => void events.push(message) } })
    const laptop = await signedIn(cfg, "ada", "Laptop/1.0")
    await signedIn(cfg, "ada", "Phone/1.0")
    const phone = (await listSessions(await asRequest(laptop), cfg)).find((s) => !s.current)!
    expect(await revokeOtherSessions(await asRequest(laptop), cfg)).toBe(1)
    expect(events).toEqual([{ userId: "user-ada", sessionIds: [phone.id], scope: "others", strategy: "database" }])
  })
})

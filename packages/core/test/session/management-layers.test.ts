/**
 * Session management (`lib/session/manage.ts`) checks again what a store promised: a
 * registry's `list(userId)` and an adapter's `listSessions(userId)` should answer only that
 * user's live sessions, but a store with a loose query (a missing `WHERE user_id`, an expiry
 * it does not filter) must still never show or end another user's session, or one that is
 * over. Each test below hands the inner layer what the store's own filter would have kept
 * from it. Also: what a listed session says, in which order, and which revocation clears
 * the browser's own cookie.
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig, type SessionRecord } from "@portcullis/core"
import type { AdapterSession } from "@portcullis/core/adapters"
import { listSessions, revokeOtherSessions, revokeSession, signOutEverywhere, type SessionRequest } from "@portcullis/core/integration"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser } from "../helpers.js"
import { config as baseConfig, ORIGIN, signedIn } from "./management-support.js"

const quiet = { error() {}, warn() {}, debug() {} }
const config = (session: AuthConfig["session"], extra: Partial<AuthConfig> = {}) => baseConfig(session, { logger: quiet, ...extra })

async function asRequest(browser: Browser): Promise<SessionRequest> {
  return { origin: ORIGIN, headers: new Headers({ cookie: browser.cookieHeader() }), csrfToken: await browser.csrfToken() }
}

const signedInAs = async (browser: Browser) => ((await browser.session()) as { user?: { name?: string } } | null)?.user?.name

afterEach(() => vi.useRealTimers())

describe("a JWT session registry whose list answers more than the user's live sessions", () => {
  /** `list(userId)` answers every user's records, and one of the user's that has expired. */
  class LooseRegistry extends MemorySessionRegistry {
    readonly everyone: string[] = []
    expired: SessionRecord | undefined
    override async add(record: SessionRecord) {
      if (!this.everyone.includes(record.userId)) this.everyone.push(record.userId)
      return super.add(record)
    }
    override async list(_userId: string) {
      const all = (await Promise.all(this.everyone.map((user) => super.list(user)))).flat()
      return this.expired ? [...all, this.expired] : all
    }
  }

  it("lists only the signed-in user's sessions that have not expired", async () => {
    const registry = new LooseRegistry()
    const cfg = config({ strategy: "jwt", registry })
    const ada = await signedIn(cfg, "ada", "Laptop/1.0")
    await signedIn(cfg, "bob", "BobBrowser/1.0")
    registry.expired = { id: "e".repeat(32), userId: "user-ada", createdAt: new Date(0), lastSeenAt: new Date(0), expires: new Date(Date.now() - 1000) }
    const listed = await listSessions(await asRequest(ada), cfg)
    expect(listed.map((s) => s.userAgent)).toEqual(["Laptop/1.0"])
  })
})

describe("a database adapter whose listSessions answers more than the user's live sessions", () => {
  function looseAdapter() {
    const base = MemoryAdapter()
    const extra: AdapterSession[] = []
    const adapter = {
      ...base,
      // Every user's rows: a query that forgot its WHERE clause.
      async listSessions(_userId: string) {
        const all = [...(await base.listSessions!("user-ada")), ...(await base.listSessions!("user-bob"))]
        return [...all, ...extra]
      },
    }
    return { adapter, extra }
  }

  it("lists only the signed-in user's live rows", async () => {
    const { adapter, extra } = looseAdapter()
    const cfg = config({ strategy: "database", metadata: true }, { adapter })
    const ada = await signedIn(cfg, "ada", "Laptop/1.0")
    await signedIn(cfg, "bob", "BobBrowser/1.0")
    extra.push({ sessionToken: "over", userId: "user-ada", expires: new Date(Date.now() - 1000), userAgent: "Expired/1.0" } as AdapterSession)
    const listed = await listSessions(await asRequest(ada), cfg)
    expect(listed.map((s) => s.userAgent)).toEqual(["Laptop/1.0"])
  })

  it("revoking the others ends none of another user's sessions", async () => {
    const { adapter } = looseAdapter()
    const cfg = config({ strategy: "database", metadata: true }, { adapter })
    const ada = await signedIn(cfg, "ada", "Laptop/1.0")
    const phone = await signedIn(cfg, "ada", "Phone/1.0")
    const bob = await signedIn(cfg, "bob", "BobBrowser/1.0")
    expect(await revokeOtherSessions(await asRequest(ada), cfg)).toBe(1)
    expect(await signedInAs(phone)).toBeUndefined()
    expect(await signedInAs(bob)).toBe("Bob")
    expect(await signedInAs(ada)).toBe("Ada")
  })

  it("lists no row past absoluteMaxAge, though the row itself has not expired (written before the option was set)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T10:00:00Z") })
    const adapter = MemoryAdapter()
    await signedIn(config({ strategy: "database", metadata: true }, { adapter }), "ada", "Old/1.0")
    vi.setSystemTime(new Date("2026-11-28T10:50:00Z"))
    const cfg = config({ strategy: "database", metadata: true, absoluteMaxAge: 3600 }, { adapter })
    const ada = await signedIn(cfg, "ada", "New/1.0")
    // 70 minutes after the first sign-in: its row lives for 30 days, but the session is over.
    vi.setSystemTime(new Date("2026-11-28T11:10:00Z"))
    expect((await listSessions(await asRequest(ada), cfg)).map((s) => s.userAgent)).toEqual(["New/1.0"])
  })
})

describe.each([
  { name: "JWT sessions with a registry", make: () => config({ strategy: "jwt", registry: new MemorySessionRegistry() }) },
  { name: "database sessions with metadata", make: () => config({ strategy: "database", metadata: true }, { adapter: MemoryAdapter() }) },
])("the listed sessions ($name)", ({ make }) => {
  it("come current first, then newest first", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-28T10:00:00Z") })
    const cfg = make()
    await signedIn(cfg, "ada", "First/1.0")
    vi.setSystemTime(new Date("2026-11-28T10:01:00Z"))
    const middle = await signedIn(cfg, "ada", "Second/1.0")
    vi.setSystemTime(new Date("2026-11-28T10:02:00Z"))
    await signedIn(cfg, "ada", "Third/1.0")
    vi.setSystemTime(new Date("2026-11-28T10:03:00Z"))
    const listed = await listSessions(await asRequest(middle), cfg)
    expect(listed.map((s) => [s.userAgent, s.current])).toEqual([
      ["Second/1.0", true],
      ["Third/1.0", false],
      ["First/1.0", false],
    ])
    expect(listed.map((s) => s.createdAt?.toISOString())).toEqual(["2026-11-28T10:01:00.000Z", "2026-11-28T10:02:00.000Z", "2026-11-28T10:00:00.000Z"])
  })

  it("say where they were signed in from, and null where that is unknown", async () => {
    const cfg = make()
    const withAddress = new Browser((request) => {
      request.headers.set("user-agent", "Laptop/1.0")
      request.headers.set("x-forwarded-for", "203.0.113.9")
      return Auth(request, cfg)
    }, ORIGIN)
    await withAddress.signIn({ username: "ada" })
    const without = new Browser((request) => Auth(request, cfg), ORIGIN)
    await without.signIn({ username: "ada" })
    const listed = await listSessions(await asRequest(withAddress), cfg)
    expect(listed.map((s) => [s.current, s.userAgent, s.ipAddress])).toEqual([
      [true, "Laptop/1.0", "203.0.113.9"],
      [false, null, null],
    ])
  })

  it("revoking the current session by its own id clears this browser's cookie; revoking another clears nothing", async () => {
    const cfg = make()
    const laptop = await signedIn(cfg, "ada", "Laptop/1.0")
    const phone = await signedIn(cfg, "ada", "Phone/1.0")
    const [own, other] = await listSessions(await asRequest(laptop), cfg)
    const cleared: string[] = []
    const sink = (cookie: { name: string; value: string }) => void (cookie.value === "" && cleared.push(cookie.name))
    expect(await revokeSession({ ...(await asRequest(laptop)), id: other!.id }, cfg, sink)).toBe(true)
    expect(cleared).toEqual([])
    expect(await signedInAs(phone)).toBeUndefined()
    expect(await revokeSession({ ...(await asRequest(laptop)), id: own!.id }, cfg, sink)).toBe(true)
    expect(cleared).toEqual(["authjs.session-token"])
  })
})

describe("JWT revocations on this instance, within revocationCheckInterval", () => {
  it("revoking the others ends a session that was confirmed a moment ago", async () => {
    const cfg = config({ strategy: "jwt", registry: new MemorySessionRegistry(), revocationCheckInterval: 60 })
    const laptop = await signedIn(cfg, "ada", "Laptop/1.0")
    const phone = await signedIn(cfg, "ada", "Phone/1.0")
    // The phone's session is confirmed now, and would be trusted for a minute.
    expect(await signedInAs(phone)).toBe("Ada")
    expect(await revokeOtherSessions(await asRequest(laptop), cfg)).toBe(1)
    expect(await signedInAs(phone)).toBeUndefined()
  })

  it("signing out everywhere ends the current session's copies even when the registry's list lags behind it", async () => {
    /** A registry whose list comes from a replica that has not seen the newest session yet. */
    class LaggingRegistry extends MemorySessionRegistry {
      override async list() {
        return []
      }
    }
    const cfg = config({ strategy: "jwt", registry: new LaggingRegistry(), revocationCheckInterval: 60 })
    const laptop = await signedIn(cfg, "ada", "Laptop/1.0")
    expect(await signedInAs(laptop)).toBe("Ada")
    const stolen = laptop.cookieHeader()
    await signOutEverywhere(await asRequest(laptop), cfg)
    const replay = await Auth(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: stolen } }), cfg)
    expect(await replay.json()).toBeNull()
  })
})

describe("revoking the others when there are none", () => {
  it.each([
    ["JWT", () => config({ strategy: "jwt", registry: new MemorySessionRegistry() })],
    ["database", () => config({ strategy: "database", metadata: true }, { adapter: MemoryAdapter() })],
  ])("revokes nothing and reports no revocation (%s)", async (_label, make) => {
    const revoked: unknown[] = []
    const cfg = { ...make(), events: { sessionRevoked: (message: unknown) => void revoked.push(message) } }
    const laptop = await signedIn(cfg, "ada", "Laptop/1.0")
    expect(await revokeOtherSessions(await asRequest(laptop), cfg)).toBe(0)
    expect(revoked).toEqual([])
  })
})

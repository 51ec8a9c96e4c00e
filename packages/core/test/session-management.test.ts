/**
 * Issue 19 part 2: session management. The signed-in user lists their sessions and revokes
 * one, the others, or all; JWT sessions become revocable through a session registry asked
 * at most once per `revocationCheckInterval`; sessions end at `absoluteMaxAge` (T42).
 * Two runtimes over one store stand for two app instances (the process-level version of
 * this is in packages/express/test/sessions-two-instances.test.ts).
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, createAuth, type AuthConfig, type SessionRegistry } from "@portcullis/core"
import { MissingCSRF, NotSignedIn, ServiceUnavailable, SessionManagementUnsupported } from "@portcullis/core/errors"
import { encode } from "@portcullis/core/jwt"
import { listSessions, revokeOtherSessions, revokeSession, signOutEverywhere, type SessionRequest } from "@portcullis/core/integration"
import type { Adapter } from "@portcullis/core/adapters"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "./helpers.js"
import { config, ORIGIN, signedIn } from "./session/management-support.js"

/** The request a route of the app would hand to the management functions, with a CSRF token for changes. */
async function asRequest(browser: Browser, extra: Partial<SessionRequest> = {}): Promise<SessionRequest> {
  const csrfToken = await browser.csrfToken()
  return { origin: ORIGIN, headers: new Headers({ cookie: browser.cookieHeader(), "user-agent": "TestBrowser/1.0" }), csrfToken, ...extra }
}

async function signedInUser(browser: Browser): Promise<string | undefined> {
  const session = await browser.session()
  return session?.user?.name
}

/** A registry whose every call can be made to fail, counting the calls. */
class FlakyRegistry extends MemorySessionRegistry {
  down = false
  stalled = false
  touches = 0
  override async touch(userId: string, id: string, lastSeenAt: Date, expires: Date) {
    this.touches++
    if (this.stalled) return new Promise<boolean>(() => {})
    if (this.down) throw new Error("connection refused")
    return super.touch(userId, id, lastSeenAt, expires)
  }
  override async add(record: Parameters<SessionRegistry["add"]>[0]) {
    if (this.down) throw new Error("connection refused")
    return super.add(record)
  }
  override async remove(userId: string, ids: string[]) {
    if (this.down) throw new Error("connection refused")
    return super.remove(userId, ids)
  }
}

afterEach(() => {
  vi.useRealTimers()
})

const strategies = [
  { name: "JWT sessions with a registry", make: () => config({ strategy: "jwt", registry: new MemorySessionRegistry() }) },
  { name: "database sessions with metadata", make: () => config({ strategy: "database", metadata: true }, { adapter: MemoryAdapter() }) },
] as const

describe.each(strategies)("$name", ({ make }) => {
  it("lists the user's sessions with when, where from and which is current", async () => {
    const cfg = make()
    const laptop = await signedIn(cfg, "ada", "Laptop/1.0")
    await signedIn(cfg, "ada", "Phone/2.0")
    await signedIn(cfg, "bob", "BobBrowser/1.0")
    const sessions = await listSessions(await asRequest(laptop), cfg)
    expect(sessions).toHaveLength(2)
    expect(sessions[0]).toMatchObject({ current: true, userAgent: "Laptop/1.0" })
    expect(sessions[1]).toMatchObject({ current: false, userAgent: "Phone/2.0" })
    for (const s of sessions) {
      expect(s.id).toMatch(/^[0-9a-f]{32}$/)
      expect(s.createdAt).toBeInstanceOf(Date)
      expect(s.lastSeenAt).toBeInstanceOf(Date)
      expect(s.expires.getTime()).toBeGreaterThan(Date.now())
    }
    // The id is not the cookie's token (nor anything the cookie contains).
    expect(laptop.sessionCookie()).not.toContain(sessions[0]!.id)
  })

  it("revokes one session: that browser is signed out, the others are not", async () => {
    const cfg = make()
    const revoked: unknown[] = []
    cfg.events = { sessionRevoked: (m) => void revoked.push(m) }
    const laptop = await signedIn(cfg)
    const phone = await signedIn(cfg)
    const phoneId = (await listSessions(await asRequest(phone), cfg)).find((s) => s.current)!.id
    expect(await revokeSession({ ...(await asRequest(laptop)), id: phoneId }, cfg)).toBe(true)
    expect(await signedInUser(phone)).toBeUndefined()
    expect(await signedInUser(laptop)).toBe("Ada")
    expect(revoked).toEqual([expect.objectContaining({ userId: "user-ada", sessionIds: [phoneId], scope: "one" })])
    // A second revocation of the same id finds nothing.
    expect(await revokeSession({ ...(await asRequest(laptop)), id: phoneId }, cfg)).toBe(false)
  })

  it("revokes all other sessions and keeps the current one", async () => {
    const cfg = make()
    const laptop = await signedIn(cfg)
    const others = [await signedIn(cfg), await signedIn(cfg), await signedIn(cfg)]
    expect(await revokeOtherSessions(await asRequest(laptop), cfg)).toBe(3)
    for (const other of others) expect(await signedInUser(other)).toBeUndefined()
    expect(await signedInUser(laptop)).toBe("Ada")
    expect((await listSessions(await asRequest(laptop), cfg)).map((s) => s.current)).toEqual([true])
  })

  it("signs out everywhere, the current browser too (its cookie is cleared)", async () => {
    const cfg = make()
    const laptop = await signedIn(cfg)
    const phone = await signedIn(cfg)
    const cleared: string[] = []
    expect(await signOutEverywhere(await asRequest(laptop), cfg, (c) => c.value === "" && cleared.push(c.name))).toBe(2)
    expect(cleared).toContain("authjs.session-token")
    expect(await signedInUser(phone)).toBeUndefined()
    expect(await signedInUser(laptop)).toBeUndefined()
  })

  describe("attacks", () => {
    it("user B cannot revoke user A's session by its id, nor see it", async () => {
      const cfg = make()
      const ada = await signedIn(cfg, "ada")
      const bob = await signedIn(cfg, "bob")
      const adaId = (await listSessions(await asRequest(ada), cfg))[0]!.id
      expect((await listSessions(await asRequest(bob), cfg)).map((s) => s.id)).not.toContain(adaId)
      expect(await revokeSession({ ...(await asRequest(bob)), id: adaId }, cfg)).toBe(false)
      expect(await signedInUser(ada)).toBe("Ada")
    })

    it("ids that are no id (too short, other characters, an object) revoke nothing", async () => {
      const cfg = make()
      const ada = await signedIn(cfg)
      for (const id of ["", "0", "x".repeat(32), "*", "' or 1=1 --", { toString: () => "a" } as unknown as string]) {
        expect(await revokeSession({ ...(await asRequest(ada)), id }, cfg)).toBe(false)
      }
      expect(await signedInUser(ada)).toBe("Ada")
    })

    it("changes need the CSRF token and a same-site origin", async () => {
      const cfg = make()
      const ada = await signedIn(cfg)
      const phone = await signedIn(cfg)
      await expect(revokeOtherSessions({ ...(await asRequest(ada)), csrfToken: undefined }, cfg)).rejects.toBeInstanceOf(MissingCSRF)
      await expect(revokeOtherSessions({ ...(await asRequest(ada)), csrfToken: "forged" }, cfg)).rejects.toBeInstanceOf(MissingCSRF)
      const request = await asRequest(ada)
      request.headers.set("origin", "https://evil.example")
      await expect(revokeOtherSessions(request, cfg)).rejects.toBeInstanceOf(MissingCSRF)
      expect(await signedInUser(phone)).toBe("Ada")
    })

    it("a revoked session replayed afterwards is refused, and cannot manage sessions", async () => {
      const cfg = make()
      const ada = await signedIn(cfg)
      const stolen = ada.cookieHeader()
      await signOutEverywhere(await asRequest(ada), cfg)
      const replay = new Browser((r) => Auth(r, cfg), ORIGIN)
      const response = await replay.request("/auth/session", { headers: { cookie: stolen } })
      expect(await response.json()).toBeNull()
      await expect(listSessions({ origin: ORIGIN, headers: new Headers({ cookie: stolen }) }, cfg)).rejects.toBeInstanceOf(NotSignedIn)
    })

    it("a request without a session cannot list anything", async () => {
      await expect(listSessions({ origin: ORIGIN, headers: new Headers() }, make())).rejects.toBeInstanceOf(NotSignedIn)
    })
  })

  it("50 concurrent sign-ins are 50 listed sessions; 50 concurrent revocations each revoke exactly one", async () => {
    const cfg = make()
    const owner = await signedIn(cfg)
    const browsers = await Promise.all(Array.from({ length: 50 }, (_, i) => signedIn(cfg, "ada", `Browser/${i}`)))
    const listed = await listSessions(await asRequest(owner), cfg)
    expect(listed).toHaveLength(51)
    const others = listed.filter((s) => !s.current)
    // Each revocation from its own request, all at once, two of them for each id.
    const requests = await Promise.all(others.map(() => asRequest(owner)))
    const results = await Promise.all([...others, ...others].map((s, i) => revokeSession({ ...requests[i % others.length]!, id: s.id }, cfg)))
    expect(results.filter(Boolean)).toHaveLength(50)
    expect(await listSessions(await asRequest(owner), cfg)).toHaveLength(1)
    const after = await Promise.all(browsers.map(signedInUser))
    expect(after.every((name) => name === undefined)).toBe(true)
  })
})

describe("JWT sessions across two instances sharing a registry", () => {
  it("a revocation on one instance is refused on the other once revocationCheckInterval has passed, not before", async () => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const registry = new MemorySessionRegistry()
    const one = createAuth(config({ strategy: "jwt", registry, revocationCheckInterval: 30 }))
    const two = createAuth(config({ strategy: "jwt", registry, revocationCheckInterval: 30 }))
    const laptop = await signedIn(one)
    const phone = await signedIn(one)
    const onTwo = new Browser((r) => two.handle(r), ORIGIN)
    for (const [k, v] of phone.jar) onTwo.jar.set(k, v)
    expect(await signedInUser(onTwo)).toBe("Ada") // instance two has now confirmed it
    const phoneId = (await listSessions(await asRequest(phone), one)).find((s) => s.current)!.id
    expect(await revokeSession({ ...(await asRequest(laptop)), id: phoneId }, one)).toBe(true)
    // Instance one knows at once; instance two trusts its confirmation up to the bound.
    expect(await signedInUser(phone)).toBeUndefined()
    vi.setSystemTime(Date.now() + 29_000)
    expect(await signedInUser(onTwo)).toBe("Ada")
    vi.setSystemTime(Date.now() + 1_001)
    expect(await signedInUser(onTwo)).toBeUndefined()
  })

  it("asks the registry at most once per interval per session, however many checks run at once", async () => {
    const registry = new FlakyRegistry()
    const cfg = config({ strategy: "jwt", registry })
    const ada = await signedIn(cfg)
    registry.touches = 0
    const names = await Promise.all(Array.from({ length: 50 }, () => signedInUser(ada)))
    expect(names.every((n) => n === "Ada")).toBe(true)
    expect(registry.touches).toBe(1)
  })

  it("without a registry the registry path is never taken (Auth.js behaviour, nothing extra on the hot path)", async () => {
    const registry = new FlakyRegistry()
    const cfg = config({ strategy: "jwt" })
    const ada = await signedIn(cfg)
    expect(await signedInUser(ada)).toBe("Ada")
    expect(registry.touches).toBe(0)
    await expect(listSessions(await asRequest(ada), cfg)).rejects.toBeInstanceOf(SessionManagementUnsupported)
  })
})

describe("JWT sessions: tampered and foreign session ids", () => {
  it("a validly encrypted token naming another user's session id is refused", async () => {
    const registry = new MemorySessionRegistry()
    const cfg = config({ strategy: "jwt", registry })
    const ada = await signedIn(cfg, "ada")
    const adaId = (await listSessions(await asRequest(ada), cfg))[0]!.id
    // Whoever holds the secret could mint this; the registry still knows the id is Ada's.
    const forged = await encode({ token: { sub: "user-bob", name: "Bob", pcl_sid: adaId, pcl_created: Math.floor(Date.now() / 1000) }, secret: SECRET, salt: "authjs.session-token" })
    const response = await Auth(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `authjs.session-token=${forged}` } }), cfg)
    expect(await response.json()).toBeNull()
  })

  it("a token without a session id (issued before the registry was on) is refused", async () => {
    const cfg = config({ strategy: "jwt", registry: new MemorySessionRegistry() })
    const legacy = await encode({ token: { sub: "user-ada", name: "Ada" }, secret: SECRET, salt: "authjs.session-token" })
    const response = await Auth(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `authjs.session-token=${legacy}` } }), cfg)
    expect(await response.json()).toBeNull()
  })

  it("a cookie whose bytes were changed does not open at all", async () => {
    const cfg = config({ strategy: "jwt", registry: new MemorySessionRegistry() })
    const ada = await signedIn(cfg)
    const value = ada.sessionCookie()!
    const flipped = value.slice(0, 60) + (value[60] === "A" ? "B" : "A") + value.slice(61)
    const response = await Auth(new Request(`${ORIGIN}/auth/session`, { headers: { cookie: `authjs.session-token=${flipped}` } }), cfg)
    expect(await response.json()).toBeNull()
  })
})

describe("JWT sessions: the registry is down", () => {
  // The outages below are logged as errors on purpose; the tests assert the answers.
  const quiet = { error: () => {} }
  it("a check that must ask it answers 503 and keeps the cookie (neither accepted nor signed out); it works again once the registry is back", async () => {
    const registry = new FlakyRegistry()
    const cfg = config({ strategy: "jwt", registry, revocationCheckInterval: 0 }, { adapterTimeout: 1000, logger: quiet })
    const ada = await signedIn(cfg)
    registry.down = true
    const response = await ada.request("/auth/session")
    expect(response.status).toBe(503)
    expect(response.headers.get("retry-after")).toBeTruthy()
    expect(ada.sessionCookie()).toBeTruthy()
    registry.down = false
    expect(await signedInUser(ada)).toBe("Ada")
  })

  it("a sign-in while it is down fails with ServiceUnavailable and sets no session cookie", async () => {
    const registry = new FlakyRegistry()
    const cfg = config({ strategy: "jwt", registry }, { logger: quiet })
    registry.down = true
    const browser = new Browser((r) => Auth(r, cfg), ORIGIN)
    const response = await browser.signIn({ username: "ada" })
    expect(response.headers.get("location")).toContain("error=ServiceUnavailable")
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("a revocation while it is down throws ServiceUnavailable and the session stays valid", async () => {
    const registry = new FlakyRegistry()
    const cfg = config({ strategy: "jwt", registry }, { logger: quiet })
    const laptop = await signedIn(cfg)
    const phone = await signedIn(cfg)
    const request = await asRequest(laptop)
    const phoneId = (await listSessions(await asRequest(phone), cfg)).find((s) => s.current)!.id
    registry.down = true
    await expect(revokeSession({ ...request, id: phoneId }, cfg)).rejects.toBeInstanceOf(ServiceUnavailable)
    registry.down = false
    expect(await signedInUser(phone)).toBe("Ada")
  })

  it("a registry that does not answer is bounded by adapterTimeout", async () => {
    const registry = new FlakyRegistry()
    const cfg = config({ strategy: "jwt", registry, revocationCheckInterval: 0 }, { adapterTimeout: 50, logger: quiet })
    const ada = await signedIn(cfg)
    registry.stalled = true
    const response = await ada.request("/auth/session")
    expect(response.status).toBe(503)
  })
})

describe("JWT sessions: a registry needs the user id", () => {
  it("a jwt callback that drops sub fails the sign-in instead of issuing a session nobody can find", async () => {
    const cfg = config({ strategy: "jwt", registry: new MemorySessionRegistry() }, { callbacks: { jwt: ({ token }) => ({ name: token.name }) }, logger: { error: () => {} } })
    const browser = new Browser((r) => Auth(r, cfg), ORIGIN)
    const response = await browser.signIn({ username: "ada" })
    expect(response.headers.get("location")).toContain("error=")
    expect(browser.sessionCookie()).toBeUndefined()
  })
})

describe("database sessions", () => {
  it("with an Auth.js adapter (no listSessions) management is a typed error, and sessions work as before", async () => {
    const { listSessions: _omit, ...authjs } = MemoryAdapter() as Required<Adapter>
    const cfg = config({ strategy: "database" }, { adapter: authjs })
    const ada = await signedIn(cfg)
    expect(await signedInUser(ada)).toBe("Ada")
    await expect(listSessions(await asRequest(ada), cfg)).rejects.toBeInstanceOf(SessionManagementUnsupported)
  })

  it("without session.metadata the adapter gets only Auth.js's fields (an unmigrated schema keeps working)", async () => {
    const adapter = MemoryAdapter()
    const created: object[] = []
    const createSession = adapter.createSession!
    adapter.createSession = (s) => (created.push(s), createSession(s))
    const cfg = config({ strategy: "database" }, { adapter })
    const ada = await signedIn(cfg)
    expect(Object.keys(created[0]!).sort()).toEqual(["expires", "sessionToken", "userId"])
    const [listed] = await listSessions(await asRequest(ada), cfg)
    expect(listed).toMatchObject({ current: true, createdAt: null, userAgent: null })
  })
})

describe("database sessions: the store fails while listing or revoking", () => {
  // The outages below are logged as errors on purpose; the tests assert the answers.
  const quiet = { error: () => {} }
  /** The in-memory adapter whose listSessions can be made to fail or to hang. */
  function flakyAdapter() {
    const adapter = MemoryAdapter()
    const listSessions = adapter.listSessions!
    const state = { mode: "up" as "up" | "down" | "stalled" }
    adapter.listSessions = (userId) =>
      state.mode === "down" ? Promise.reject(new Error("connection refused")) : state.mode === "stalled" ? new Promise(() => {}) : listSessions(userId)
    return { adapter, state }
  }

  it("a store that fails is an outage (ServiceUnavailable), not the adapter's own error; nothing is revoked", async () => {
    const { adapter, state } = flakyAdapter()
    const cfg = config({ strategy: "database" }, { adapter, logger: quiet })
    const laptop = await signedIn(cfg)
    const phone = await signedIn(cfg)
    state.mode = "down"
    await expect(listSessions(await asRequest(laptop), cfg)).rejects.toBeInstanceOf(ServiceUnavailable)
    await expect(signOutEverywhere(await asRequest(laptop), cfg)).rejects.toBeInstanceOf(ServiceUnavailable)
    state.mode = "up"
    expect(await signedInUser(phone)).toBe("Ada")
    expect(await listSessions(await asRequest(laptop), cfg)).toHaveLength(2)
  })

  it("a store that does not answer is bounded by adapterTimeout", async () => {
    const { adapter, state } = flakyAdapter()
    const cfg = config({ strategy: "database" }, { adapter, adapterTimeout: 50, logger: quiet })
    const ada = await signedIn(cfg)
    state.mode = "stalled"
    await expect(revokeOtherSessions(await asRequest(ada), cfg)).rejects.toBeInstanceOf(ServiceUnavailable)
  })
})

describe("absolute session lifetime (T42)", () => {
  it.each([
    ["JWT", () => config({ strategy: "jwt", absoluteMaxAge: 3600, updateAge: 0 })],
    ["database", () => config({ strategy: "database", metadata: true, absoluteMaxAge: 3600, updateAge: 0 }, { adapter: MemoryAdapter() })],
  ])("%s: a session kept busy (and so extended) is still refused once absoluteMaxAge has passed since sign-in", async (_name, make) => {
    vi.useFakeTimers({ toFake: ["Date"] })
    const cfg = make()
    const signedInAt = Date.now()
    const ada = await signedIn(cfg)
    // The answer's expiry is the absolute limit, not now + maxAge (30 days).
    expect(Date.parse((await ada.session()).expires)).toBeLessThanOrEqual(signedInAt + 3600_000 + 1000)
    // Five checks, ten minutes apart: each one extends the session (updateAge 0).
    for (let i = 0; i < 5; i++) {
      vi.setSystemTime(Date.now() + 10 * 60_000)
      expect(await signedInUser(ada)).toBe("Ada")
    }
    vi.setSystemTime(Date.now() + 11 * 60_000)
    expect(await signedInUser(ada)).toBeUndefined()
  })

  it("database sessions without metadata cannot have one (a configuration error naming the fix)", async () => {
    const cfg = config({ strategy: "database", absoluteMaxAge: 3600 }, { adapter: MemoryAdapter() })
    const response = await Auth(new Request(`${ORIGIN}/auth/session`), cfg)
    expect(response.status).toBe(500)
  })
})

describe("configuration errors name the fix", () => {
  const refused = async (session: AuthConfig["session"], extra: Partial<AuthConfig> = {}) => {
    const lines: string[] = []
    const cfg = config(session, { logger: { error: (e) => void lines.push(e.message) }, ...extra })
    const response = await Auth(new Request(`${ORIGIN}/auth/session`), cfg)
    expect(response.status).toBe(500)
    return lines.join("\n")
  }

  it("a registry without the five methods", async () => {
    expect(await refused({ strategy: "jwt", registry: { add() {} } as unknown as SessionRegistry })).toMatch(/session\.registry lacks touch, list, remove, removeAll/)
  })

  it("a registry with database sessions", async () => {
    expect(await refused({ strategy: "database", registry: new MemorySessionRegistry() }, { adapter: MemoryAdapter() })).toMatch(/session\.registry is for JWT sessions/)
  })

  it("a negative revocationCheckInterval, a zero absoluteMaxAge, a registry that is not an object", async () => {
    expect(await refused({ strategy: "jwt", revocationCheckInterval: -1 })).toMatch(/revocationCheckInterval/)
    expect(await refused({ strategy: "jwt", absoluteMaxAge: 0 })).toMatch(/absoluteMaxAge/)
    expect(await refused({ strategy: "jwt", registry: 5 as unknown as SessionRegistry })).toMatch(/session\.registry must be object/)
  })

  it("two configurations sharing a registry object still keep their own confirmations", async () => {
    const registry = new MemorySessionRegistry()
    const one = createAuth(config({ strategy: "jwt", registry }))
    const two = createAuth(config({ strategy: "jwt", registry }))
    expect(one.config.sessionRegistry).not.toBe(two.config.sessionRegistry)
  })
})

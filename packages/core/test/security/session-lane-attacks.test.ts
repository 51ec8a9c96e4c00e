import { afterEach, describe, expect, it, vi } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import type { Adapter, AdapterSession, AdapterUser } from "@portcullis/core/adapters"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { credentialsConfig, SECRET } from "../helpers.js"

/**
 * Attacks on the session lane (`lib/session/answers.ts`, `lib/http/session-check.ts`, the
 * shortcut at the top of `AuthRuntime.#run`). The lane's promise: for every request its
 * answer — status, headers, body, Set-Cookie — is the full check's answer, and no check is
 * skipped. The reference for "the full check" is the same configuration with a no-op
 * `events.session`, which keeps every request off the lane.
 *
 * Each test states the attacker's (or the odd store's) steps and the safe outcome.
 */

const COOKIE = "authjs.session-token"
const SECURE_COOKIE = `__Secure-${COOKIE}`
const quiet = { error() {}, warn() {}, debug() {} }
const DAY = 86_400_000
const NOW = new Date("2026-11-25T12:00:00.000Z")
const claims = { name: "Ada Lovelace", email: "ada@example.com", picture: "https://example.com/ada.png", sub: "user-ada" }

type Answer = { status: number; headers: [string, string][]; body: string }

/** The lane configuration and its full-path twin (a no-op session event disables the lane). */
function twins(extra: Partial<AuthConfig> = {}) {
  return {
    lane: credentialsConfig({ logger: quiet, ...extra }),
    full: credentialsConfig({ logger: quiet, ...extra, events: { ...extra.events, session: async () => {} } }),
  }
}

async function ask(config: AuthConfig, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await Auth(new Request(url, { headers }), config)
  return { status: response.status, headers: [...response.headers], body: await response.text() }
}

const SESSION_URL = "http://localhost:3000/auth/session"

/** Asks both twins twice (the first to warm the origin memo and token cache) and returns the second answers. */
async function warmBoth(pair: ReturnType<typeof twins>, url: string, headers: Record<string, string> = {}) {
  await ask(pair.lane, url, headers)
  await ask(pair.full, url, headers)
  return { lane: await ask(pair.lane, url, headers), full: await ask(pair.full, url, headers) }
}

/** Set-Cookie lines as name + attributes (a re-issued JWT differs in its random IV). */
function cookieShapes(answer: Answer): string[] {
  return answer.headers.filter(([n]) => n === "set-cookie").map(([, v]) => `${v.split("=")[0]};${v.split(";").slice(1).join(";").replace(/Expires=[^;]+/, "Expires=*")}`)
}

afterEach(() => {
  vi.useRealTimers()
})

// ---------------------------------------------------------------------------------------
// Finding 1: a store that answers an odd value.
// ---------------------------------------------------------------------------------------

/**
 * A database adapter over the memory adapter whose `getSessionAndUser` answers are bent by
 * `bend` (what a hand-written or JSON-backed adapter may really return).
 */
async function oddStore(bend: (found: { session: AdapterSession; user: AdapterUser }) => unknown): Promise<Adapter> {
  const memory = MemoryAdapter()
  await memory.createUser!({ id: "u1", email: "ada@example.com", emailVerified: null, name: "Ada", image: null })
  await memory.createSession!({ sessionToken: "tok", userId: "u1", expires: new Date(Date.now() + 30 * DAY) })
  return {
    ...memory,
    async getSessionAndUser(token: string) {
      const found = await memory.getSessionAndUser!(token)
      return (found ? bend(found) : found) as { session: AdapterSession; user: AdapterUser } | null
    },
  }
}

describe("finding 1: a database store that answers an odd row", () => {
  const cases: [string, (found: { session: AdapterSession; user: AdapterUser }) => unknown][] = [
    // e.g. a KV or HTTP adapter that JSON-parses its rows and forgets to revive the Date.
    ["expires as an ISO string", ({ session, user }) => ({ session: { ...session, expires: session.expires.toISOString() }, user })],
    ["expires as an invalid Date", ({ session, user }) => ({ session: { ...session, expires: new Date(Number.NaN) }, user })],
    ["a session without its user (user deleted under a join)", ({ session }) => ({ session, user: null })],
  ]
  for (const [label, bend] of cases) {
    it(`${label}: the lane answers what the full check answers (200 null), not an error redirect`, async () => {
      // Steps: a session cookie is sent for a row the store returns in an odd shape.
      // The full check treats the row as unreadable (logged; 200 `null`); the lane must too.
      vi.useFakeTimers({ toFake: ["Date"], now: NOW })
      const adapter = await oddStore(bend)
      const pair = twins({ adapter, session: { strategy: "database" } })
      const { lane, full } = await warmBoth(pair, SESSION_URL, { cookie: `${COOKIE}=tok` })
      expect(full.status).toBe(200)
      expect(full.body).toBe("null")
      expect(lane).toEqual(full)
    })
  }
})

// ---------------------------------------------------------------------------------------
// Finding 2: a JWT whose `iat` puts its expiry past the end of JavaScript time.
// ---------------------------------------------------------------------------------------

describe("finding 2: a verified JWT whose expiry cannot be written as a date", () => {
  it("is refused (200 null, cookie cleared) by the lane as by the full check, cold and cached", async () => {
    // Steps: a token was issued by this secret while the clock (or a custom `jwt.encode`)
    // put `iat` near the end of the Date range (8.64e15 ms), so `iat + maxAge` is past it.
    // The full check's `toISOString()` throws inside its try: logged, `null`, cookie cleared.
    // The lane's `#answerFor` throws outside any try, and `#run` treats that as a store
    // failure: the request ends on the error-page redirect instead.
    vi.useFakeTimers({ toFake: ["Date"], now: new Date(8.64e15 - 60_000) })
    const token = await encode({ token: claims, secret: SECRET, salt: COOKIE })
    vi.setSystemTime(NOW)
    const pair = twins()
    const cookie = { cookie: `${COOKIE}=${token}` }
    // Warm the origin memo only (no cookie), so the first token check below is cold.
    await ask(pair.lane, SESSION_URL)
    await ask(pair.full, SESSION_URL)
    const coldLane = await ask(pair.lane, SESSION_URL, cookie)
    const coldFull = await ask(pair.full, SESSION_URL, cookie)
    expect(coldFull.status).toBe(200)
    expect(coldFull.body).toBe("null")
    expect(coldLane).toEqual(coldFull)
    const warmLane = await ask(pair.lane, SESSION_URL, cookie)
    expect(warmLane).toEqual(await ask(pair.full, SESSION_URL, cookie))
  })
})

// ---------------------------------------------------------------------------------------
// Regression tests: attacks that failed (the lane held).
// ---------------------------------------------------------------------------------------

describe("origins: the lane never serves an origin the full parser refused or did not see", () => {
  it("forged Host / X-Forwarded-* without trustHost: 400 every time, on both twins, after a good request warmed the memo", async () => {
    const pair = twins({ trustHost: false, trustedOrigins: ["https://app.example"] })
    const token = await encode({ token: claims, secret: SECRET, salt: SECURE_COOKIE })
    const cookie = `${SECURE_COOKIE}=${token}`
    // Warm: the real origin is accepted and remembered.
    const good = await warmBoth(pair, "https://app.example/auth/session", { cookie })
    expect(JSON.parse(good.lane.body).user.email).toBe("ada@example.com")
    expect(good.lane).toEqual(good.full)
    const hostile: [string, Record<string, string>][] = [
      ["https://evil.example/auth/session", { cookie }],
      ["https://app.example.evil.example/auth/session", { cookie }],
      ["https://app.example./auth/session", { cookie }],
      ["http://app.example/auth/session", { cookie: `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}` }],
      ["https://[::1]/auth/session", { cookie }],
      ["https://app.example:8443/auth/session", { cookie }],
    ]
    for (const [url, headers] of hostile) {
      const { lane, full } = await warmBoth(pair, url, headers)
      expect(lane, url).toEqual(full)
      expect(lane.body, url).not.toContain("ada@example.com")
    }
    // Userinfo: undici refuses it in a Request, other runtimes may pass it through. A
    // Request whose URL carries `user@` before the remembered host must not be taken for it.
    for (const url of ["https://app.example@evil.example/auth/session", "https://x:y@app.example/auth/session"]) {
      const forged = (config: AuthConfig) => {
        const request = new Request("https://app.example/auth/session", { headers: { cookie } })
        Object.defineProperty(request, "url", { value: url })
        return Auth(request, config).then(async (r) => ({ status: r.status, body: await r.text() }))
      }
      const lane = await forged(pair.lane)
      expect(lane, url).toEqual(await forged(pair.full))
      if (url.includes("evil")) expect(lane.status, url).toBe(400)
    }
    // Without trustHost a forwarded host is only text from the client: ignored on both paths,
    // so the real origin answers as before (and the forged value reaches no URL).
    const ignored = await warmBoth(pair, "https://APP.example:443/auth/session", { cookie, "x-forwarded-host": "evil.example", "x-forwarded-proto": "http" })
    expect(ignored.lane).toEqual(ignored.full)
    expect(JSON.parse(ignored.lane.body).user.email).toBe("ada@example.com")
  })

  it("with trustHost, X-Forwarded-Proto decides the cookie name, and the lane follows it per request", async () => {
    // Steps: with the memo warm for (http, no forwarded proto), send the __Secure- cookie
    // over http, and the plain cookie with `X-Forwarded-Proto: https`. Neither may be read.
    const pair = twins()
    const plain = `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}`
    const secure = `${SECURE_COOKIE}=${await encode({ token: claims, secret: SECRET, salt: SECURE_COOKIE })}`
    for (const [headers, signedIn] of [
      [{ cookie: plain }, true],
      [{ cookie: secure }, false],
      [{ cookie: plain, "x-forwarded-proto": "https" }, false],
      [{ cookie: secure, "x-forwarded-proto": "https" }, true],
      [{ cookie: secure, "x-forwarded-proto": "https, http" }, true],
      [{ cookie: plain, "x-forwarded-proto": "http, https" }, true],
      [{ cookie: secure, "x-forwarded-proto": "javascript" }, false],
    ] as const) {
      const { lane, full } = await warmBoth(pair, SESSION_URL, headers)
      expect(lane, JSON.stringify(headers)).toEqual(full)
      expect(lane.body.includes("ada@example.com"), JSON.stringify(headers)).toBe(signedIn)
    }
  })

  it("AUTH_URL set: the lane answers only the exact base path, never a look-alike path", async () => {
    vi.stubEnv("AUTH_URL", "https://site.example/api/auth")
    try {
      const pair = twins({ trustHost: false })
      const cookie = `${SECURE_COOKIE}=${await encode({ token: claims, secret: SECRET, salt: SECURE_COOKIE })}`
      for (const url of [
        "https://site.example/api/auth/session",
        "https://evil.example/api/auth/session",
        "https://site.example/auth/session",
        "https://site.example/api/auth/session/",
        "https://site.example/api/auth/%73ession",
        "https://site.example/API/AUTH/session",
        "https://site.example/api/auth/./session",
        "https://site.example/api//auth/session",
      ]) {
        const { lane, full } = await warmBoth(pair, url, { cookie })
        expect(lane, url).toEqual(full)
      }
    } finally {
      vi.unstubAllEnvs()
    }
  })
})

describe("cookies: every way of sending the session cookie gets the full check's answer", () => {
  it("duplicates, quotes, percent-encoding, whitespace, chunks and look-alike names", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const pair = twins()
    const token = await encode({ token: claims, secret: SECRET, salt: COOKIE })
    const other = await encode({ token: { ...claims, name: "Mallory", email: "mallory@example.com" }, secret: SECRET, salt: COOKIE })
    const foreign = await encode({ token: claims, secret: "some-other-secret-with-at-least-32-chars!!", salt: COOKIE })
    const wrongSalt = await encode({ token: claims, secret: SECRET, salt: SECURE_COOKIE })
    const headers = [
      `${COOKIE}=${other}; ${COOKIE}=${token}`,
      `${COOKIE}="${token}`,
      `${COOKIE}="${token}"; ${COOKIE}=${other}`,
      `${COOKIE}=${encodeURIComponent(token)}`,
      `${COOKIE}=${token.replace(/-/g, "%2D")}`,
      `${COOKIE}=%22${token}%22`,
      `${COOKIE}=\t${token}\t`,
      `;;;${COOKIE}=${token};;`,
      `${COOKIE}=${token},${COOKIE}=${other}`,
      `${COOKIE}.0=${other}`,
      `${COOKIE}.00=${token}`,
      `${COOKIE}.1=${token}; ${COOKIE}=${token}`,
      `${COOKIE}.0=${token.slice(0, 200)}; ${COOKIE}.1=${token.slice(200)}; ${COOKIE}=${other}`,
      `${COOKIE}.x=1; ${COOKIE}=${token}`,
      `x=${COOKIE}.; ${COOKIE}=${token}`,
      `${SECURE_COOKIE}=${token}`,
      `${COOKIE}=${foreign}`,
      `${COOKIE}=${wrongSalt}`,
      `${COOKIE}=${token}x`,
      `${COOKIE}=${token.slice(0, -1)}`,
      `${COOKIE.toUpperCase()}=${token}`,
      `${COOKIE}=${"A".repeat(20_000)}`,
      `${COOKIE}==`,
      `=${token}`,
    ]
    for (const header of headers) {
      const { lane, full } = await warmBoth(pair, SESSION_URL, { cookie: header })
      expect(lane, header.slice(0, 80)).toEqual(full)
    }
  })

  it("a chunked session is assembled by the full check on the lane configuration too", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const pair = twins()
    const big = { ...claims, blob: "x".repeat(6000) }
    const token = await encode({ token: big, secret: SECRET, salt: COOKIE })
    const header = `${COOKIE}.0=${token.slice(0, 3936)}; ${COOKIE}.1=${token.slice(3936)}`
    const { lane, full } = await warmBoth(pair, SESSION_URL, { cookie: header })
    expect(lane).toEqual(full)
    expect(JSON.parse(lane.body).user.email).toBe("ada@example.com")
  })
})

describe("tokens over time: a cached token is never answered past updateAge or exp", () => {
  it("walks a cached token across updateAge and exp, one second at a time at each edge", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const session = { strategy: "jwt" as const, maxAge: 3600, updateAge: 600 }
    const pair = twins({ session })
    const token = await encode({ token: claims, secret: SECRET, salt: COOKIE, maxAge: 3600 })
    const cookie = { cookie: `${COOKIE}=${token}` }
    await warmBoth(pair, SESSION_URL, cookie)
    for (const offset of [598, 599, 600, 601, 3585, 3599, 3600, 3601, 3614, 3615, 3616, 7200]) {
      vi.setSystemTime(NOW.getTime() + offset * 1000)
      const lane = await ask(pair.lane, SESSION_URL, cookie)
      const full = await ask(pair.full, SESSION_URL, cookie)
      expect(lane.status, `+${offset}s`).toBe(full.status)
      expect(JSON.parse(lane.body), `+${offset}s`).toEqual(JSON.parse(full.body))
      expect(cookieShapes(lane), `+${offset}s`).toEqual(cookieShapes(full))
    }
  })

  it("a rotated-out secret: the token cached under the old ring is re-issued by every check, even 50 at once", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const pair = twins({ secret: ["the-new-secret-with-at-least-32-characters", SECRET] })
    const cookie = { cookie: `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}` }
    const answers = await Promise.all(Array.from({ length: 50 }, () => ask(pair.lane, SESSION_URL, cookie)))
    for (const answer of answers) {
      expect(cookieShapes(answer)).toEqual([`${COOKIE}; Path=/; Expires=*; HttpOnly; SameSite=Lax`])
      expect(JSON.parse(answer.body).user.email).toBe("ada@example.com")
    }
  })

  it("T67: a marked token whose user is deleted is refused even while 50 checks of it race, and stays refused", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const adapter = MemoryAdapter()
    const user = await adapter.createUser!({ id: "u-eve", email: "eve@example.com", emailVerified: null, name: "Eve" })
    const pair = twins({ adapter, session: { strategy: "jwt" } })
    const cookie = { cookie: `${COOKIE}=${await encode({ token: { sub: user.id, email: user.email, name: "Eve", pcl_unverified: Math.floor(NOW.getTime() / 1000) }, secret: SECRET, salt: COOKIE })}` }
    const before = await warmBoth(pair, SESSION_URL, cookie)
    expect(JSON.parse(before.lane.body).user.email).toBe("eve@example.com")
    await adapter.deleteUser!(user.id)
    const racing = await Promise.all(Array.from({ length: 50 }, () => ask(pair.lane, SESSION_URL, cookie)))
    const reference = await ask(pair.full, SESSION_URL, cookie)
    expect(reference.body).toBe("null")
    for (const answer of racing) expect(answer).toEqual(reference)
  })

  it("a store outage behind a marked token is a 503 with the cookie kept, not an answer from the cache", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "u-eve", email: "eve@example.com", emailVerified: null, name: "Eve" })
    let down = false
    const adapter = {
      ...memory,
      getUser(id: string) {
        if (down) throw new Error("connection refused")
        return memory.getUser!(id)
      },
    }
    const pair = twins({ adapter, session: { strategy: "jwt" } })
    const cookie = { cookie: `${COOKIE}=${await encode({ token: { sub: "u-eve", email: "eve@example.com", pcl_unverified: Math.floor(NOW.getTime() / 1000) }, secret: SECRET, salt: COOKIE })}` }
    await warmBoth(pair, SESSION_URL, cookie)
    down = true
    const { lane, full } = await warmBoth(pair, SESSION_URL, cookie)
    expect(full.status).toBe(503)
    expect(lane).toEqual(full)
  })
})

describe("T67 behind a hung store", () => {
  it("a marked token whose getUser hangs: 503 within ~1.25 × adapterTimeout, as the full check, after a warm check", async () => {
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "u-eve", email: "eve@example.com", emailVerified: null, name: "Eve" })
    let hang = false
    const adapter = { ...memory, getUser: (id: string) => (hang ? new Promise<null>(() => {}) : memory.getUser!(id)) }
    const pair = twins({ adapter, adapterTimeout: 80, session: { strategy: "jwt" } })
    const cookie = { cookie: `${COOKIE}=${await encode({ token: { sub: "u-eve", email: "eve@example.com", pcl_unverified: Math.floor(Date.now() / 1000) }, secret: SECRET, salt: COOKIE })}` }
    await warmBoth(pair, SESSION_URL, cookie)
    hang = true
    const started = performance.now()
    const lane = await ask(pair.lane, SESSION_URL, cookie)
    expect(performance.now() - started).toBeLessThan(80 * 1.25 + 150)
    const full = await ask(pair.full, SESSION_URL, cookie)
    expect(lane.status).toBe(503)
    expect(lane).toEqual(full)
  })
})

describe("two configurations in one process share nothing through the lane", () => {
  it("a token cached and answered by one configuration is judged afresh by another with other rules", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const token = await encode({ token: claims, secret: SECRET, salt: COOKIE })
    const cookie = { cookie: `${COOKIE}=${token}` }
    const long = credentialsConfig({ logger: quiet })
    // Same secret and cookie name, a shorter updateAge: the token is stale here.
    const short = credentialsConfig({ logger: quiet, session: { strategy: "jwt", maxAge: 7200, updateAge: 60 } })
    const shortFull = credentialsConfig({ logger: quiet, session: { strategy: "jwt", maxAge: 7200, updateAge: 60 }, events: { session: async () => {} } })
    await ask(long, SESSION_URL, cookie)
    expect(JSON.parse((await ask(long, SESSION_URL, cookie)).body).expires).toBe(new Date(NOW.getTime() + 30 * DAY).toISOString())
    vi.setSystemTime(NOW.getTime() + 120_000)
    await ask(short, SESSION_URL)
    await ask(shortFull, SESSION_URL)
    const lane = await ask(short, SESSION_URL, cookie)
    const full = await ask(shortFull, SESSION_URL, cookie)
    expect(JSON.parse(lane.body)).toEqual(JSON.parse(full.body))
    expect(cookieShapes(lane)).toEqual(cookieShapes(full))
    expect(cookieShapes(lane)).toHaveLength(1)
  })

  it("an origin accepted by a trustHost configuration is not accepted by a strict one", async () => {
    const open = credentialsConfig({ logger: quiet, trustHost: true })
    const strict = credentialsConfig({ logger: quiet, trustHost: false, trustedOrigins: ["https://app.example"] })
    const cookie = { cookie: `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: COOKIE })}` }
    await ask(open, "http://evil.example/auth/session", cookie)
    expect((await ask(open, "http://evil.example/auth/session", cookie)).body).toContain("ada@example.com")
    expect((await ask(strict, "http://evil.example/auth/session", cookie)).status).toBe(400)
    expect((await ask(strict, "http://evil.example/auth/session", cookie)).status).toBe(400)
  })
})

describe("database sessions: rows changed between checks", () => {
  async function dbTwins(extra: Partial<AuthConfig> = {}) {
    const memory = MemoryAdapter()
    await memory.createUser!({ id: "u1", email: "ada@example.com", emailVerified: null, name: "Ada", image: null })
    const pair = twins({ adapter: memory, session: { strategy: "database" }, ...extra })
    return { memory, ...pair }
  }

  it("deleted, expired, then extended rows: each check answers what the full check answers", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const { memory, lane, full } = await dbTwins()
    const cookieFor = (t: string) => ({ cookie: `${COOKIE}=${t}` })
    const tokens = ["tok-lane", "tok-full"]
    for (const t of tokens) await memory.createSession!({ sessionToken: t, userId: "u1", expires: new Date(NOW.getTime() + 30 * DAY) })
    const same = async (label: string) => {
      const a = await ask(lane, SESSION_URL, cookieFor("tok-lane"))
      const b = await ask(full, SESSION_URL, cookieFor("tok-full"))
      expect(JSON.parse(JSON.stringify(a).replaceAll("tok-lane", "tok-full")), label).toEqual(b)
      return a
    }
    expect(JSON.parse((await same("live")).body).user.email).toBe("ada@example.com")
    for (const t of tokens) await memory.deleteSession!(t)
    expect((await same("deleted")).body).toBe("null")
    for (const t of tokens) await memory.createSession!({ sessionToken: t, userId: "u1", expires: new Date(NOW.getTime() + 30 * DAY) })
    vi.setSystemTime(NOW.getTime() + 2 * DAY) // due for extension
    const due = await same("due")
    expect(cookieShapes(due)).toHaveLength(1)
    vi.setSystemTime(NOW.getTime() + 31 * DAY) // past the original expiry, within the extended one
    const later = await same("after extension")
    expect(later.status).toBe(200)
    vi.setSystemTime(NOW.getTime() + 100 * DAY)
    expect((await same("expired")).body).toBe("null")
  })

  it("hashTokens: a leaked stored hash used as a cookie signs nobody in", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW })
    const { memory, lane, full } = await dbTwins({ session: { strategy: "database", hashTokens: true } })
    const { sha256Hex } = await import("../../src/lib/crypto.js")
    const stored = await sha256Hex("secret-token")
    await memory.createSession!({ sessionToken: stored, userId: "u1", expires: new Date(NOW.getTime() + 30 * DAY) })
    const leaked = await warmBoth({ lane, full }, SESSION_URL, { cookie: `${COOKIE}=${stored}` })
    expect(leaked.lane).toEqual(leaked.full)
    expect(leaked.lane.body).toBe("null")
    expect(JSON.parse((await ask(lane, SESSION_URL, { cookie: `${COOKIE}=secret-token` })).body).user.email).toBe("ada@example.com")
  })

  it("adapters that throw, reject with odd values or hang: 503 with the cookie kept, within ~1.25 × adapterTimeout", async () => {
    const memory = MemoryAdapter()
    const behaviours: [string, Adapter["getSessionAndUser"]][] = [
      ["throws", () => {
        throw new Error("down")
      }],
      ["rejects with undefined", () => Promise.reject(undefined)],
      ["rejects with a string", () => Promise.reject("down")],
      ["hangs", () => new Promise(() => {})],
      ["thenable that never calls back", () => ({ then() {} }) as unknown as Promise<null>],
    ]
    for (const [label, getSessionAndUser] of behaviours) {
      const pair = twins({ adapter: { ...memory, getSessionAndUser }, adapterTimeout: 80, session: { strategy: "database" } })
      await ask(pair.lane, SESSION_URL)
      await ask(pair.full, SESSION_URL)
      const started = performance.now()
      const lane = await ask(pair.lane, SESSION_URL, { cookie: `${COOKIE}=tok` })
      const took = performance.now() - started
      const full = await ask(pair.full, SESSION_URL, { cookie: `${COOKIE}=tok` })
      expect(lane.status, label).toBe(503)
      expect(lane, label).toEqual(full)
      expect(took, label).toBeLessThan(80 * 1.25 + 150)
    }
  })

  it("50 concurrent checks against a hung store all fail within ~1.25 × adapterTimeout, and none is left unhandled", async () => {
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on("unhandledRejection", onUnhandled)
    try {
      let release: (() => void) | undefined
      const gate = new Promise<void>((r) => (release = r))
      const memory = MemoryAdapter()
      const adapter = { ...memory, getSessionAndUser: () => gate.then(() => Promise.reject(new Error("late failure"))) }
      const pair = twins({ adapter, adapterTimeout: 100, session: { strategy: "database" } })
      await ask(pair.lane, SESSION_URL)
      const started = performance.now()
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => ask(pair.lane, SESSION_URL, { cookie: `${COOKIE}=t${i % 5}` })))
      const took = performance.now() - started
      for (const answer of answers) expect(answer.status).toBe(503)
      expect(took).toBeLessThan(100 * 1.25 + 200)
      release!()
      await new Promise((r) => setTimeout(r, 50))
      expect(unhandled).toEqual([])
    } finally {
      process.off("unhandledRejection", onUnhandled)
    }
  })
})

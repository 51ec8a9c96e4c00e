/**
 * `/csrf` and `/session` answer with Auth.js's caching headers, and database sessions give
 * the `session` callback what Auth.js gives it (issue #16 C.5–C.6). The same requests run
 * through `@auth/core` in the same test.
 */
import { describe, expect, it } from "vitest"
import { Auth as AuthJs } from "@auth/core"
import { Auth, type AuthConfig } from "@portcullis/core"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"

const origin = "http://localhost:3000"
const cachingHeaders = ["content-type", "cache-control", "expires", "pragma"]
const pick = (response: Response, names: string[]) => Object.fromEntries(names.map((n) => [n, response.headers.get(n)]))
const silent = { error: () => {}, warn: () => {}, debug: () => {} }

describe("/csrf and /session send Auth.js's caching headers", () => {
  const config = (): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [], logger: silent })

  it.each([["/auth/csrf"], ["/auth/session"]])("GET %s", async (path) => {
    const ours = await Auth(new Request(`${origin}${path}`), config())
    const theirs = await AuthJs(new Request(`${origin}${path}`), config() as any)
    expect(pick(ours, cachingHeaders)).toEqual(pick(theirs, cachingHeaders))
    expect(ours.headers.get("cache-control")).toBe("private, no-cache, no-store")
    // Ours on top: shared caches key personal answers by cookie.
    expect(ours.headers.get("vary")).toBe("Cookie")
  })

  it("a signed-in GET /session and a session update carry the same no-store header", async () => {
    const browser = new Browser(direct(credentialsConfig()))
    await browser.signIn()
    const read = await browser.request("/auth/session")
    expect(read.headers.get("cache-control")).toBe("private, no-cache, no-store")
    const update = await browser.request("/auth/session", { method: "POST", json: { csrfToken: await browser.csrfToken(), data: {} } })
    expect(update.status).toBe(200)
    // Auth.js sends no Cache-Control on an update; ours keeps no-store (it conflicts with nothing).
    expect(update.headers.get("cache-control")).toBe("private, no-cache, no-store")
  })

  it("hostile: a garbage session cookie still gets the no-store answer", async () => {
    const response = await Auth(new Request(`${origin}/auth/session`, { headers: { cookie: "authjs.session-token=%%%garbage" } }), config())
    expect(response.status).toBe(200)
    expect(await response.json()).toBeNull()
    expect(response.headers.get("cache-control")).toBe("private, no-cache, no-store")
  })
})

describe("a database session's callback gets the row as the adapter returned it", () => {
  const day = 24 * 60 * 60 * 1000

  /** A user and a session row due for extension (30-day sessions, updated daily). */
  async function seeded() {
    const adapter = MemoryAdapter()
    const user = await adapter.createUser!({ id: "u1", email: "ada@example.com", emailVerified: null, name: "Ada", image: null } as any)
    const expires = new Date(Math.floor((Date.now() + 10 * day) / 1000) * 1000)
    await adapter.createSession!({ sessionToken: "token-1", userId: user.id, expires })
    return { adapter, expires }
  }

  async function run(auth: typeof Auth | typeof AuthJs, callbacks: AuthConfig["callbacks"]) {
    const { adapter, expires } = await seeded()
    const config = { secret: SECRET, trustHost: true, adapter, providers: [], session: { strategy: "database" as const }, callbacks, logger: silent }
    const response = await auth(new Request(`${origin}/auth/session`, { headers: { cookie: "authjs.session-token=token-1" } }), config as any)
    const stored = await adapter.getSessionAndUser!("token-1")
    return { body: await response.json(), expires, extendedTo: stored!.session.expires }
  }

  it("session.expires is the adapter's Date from before the extension, and the default answer's expires is that date", async () => {
    const inputs: Record<string, unknown>[] = []
    const record = ({ session }: any) => {
      inputs.push({ expiresIsDate: session.expires instanceof Date, expires: session.expires?.toISOString?.(), keys: Object.keys(session).sort() })
      return { user: { name: session.user.name }, expires: session.expires }
    }
    const ours = await run(Auth, { session: record })
    const theirs = await run(AuthJs, { session: record } as any)
    expect(inputs[0]).toEqual({ ...inputs[1], expires: ours.expires.toISOString() })
    expect(inputs[1]!.expires).toBe(theirs.expires.toISOString())
    expect(inputs[0]!.expiresIsDate).toBe(true)
    // Both extended the row; neither answer shows the extension yet.
    expect(ours.extendedTo.getTime()).toBeGreaterThan(ours.expires.getTime())
    expect(ours.body).toEqual({ user: { name: "Ada" }, expires: ours.expires.toISOString() })
    expect(theirs.body).toEqual({ user: { name: "Ada" }, expires: theirs.expires.toISOString() })
  })

  it("without a callback the answer is Auth.js's default session", async () => {
    const ours = await run(Auth, undefined)
    const theirs = await run(AuthJs, undefined)
    expect(ours.body).toEqual({ user: { name: "Ada", email: "ada@example.com", image: null }, expires: ours.expires.toISOString() })
    expect(theirs.body).toEqual({ ...ours.body, expires: theirs.expires.toISOString() })
  })

  it("hostile: a callback returning the session as it came does not hand the session token to page scripts (Auth.js does)", async () => {
    const ours = await run(Auth, { session: ({ session }) => session })
    const theirs = await run(AuthJs, { session: ({ session }: any) => session } as any)
    expect(theirs.body.sessionToken).toBe("token-1")
    expect(ours.body).not.toHaveProperty("sessionToken")
    expect(ours.body.userId).toBe("u1")
  })
})

describe("a JWT session answers the token's claims as Auth.js does", () => {
  it("a claim that is null stays null; an absent one is left out", async () => {
    const { encode } = await import("@portcullis/core/jwt")
    const token = await encode({ token: { sub: "1", name: null, email: "ada@example.com" }, secret: SECRET, salt: "authjs.session-token" })
    const request = () => new Request(`${origin}/auth/session`, { headers: { cookie: `authjs.session-token=${token}` } })
    const config = (): AuthConfig => ({ secret: SECRET, trustHost: true, providers: [], logger: silent })
    const ours = await (await Auth(request(), config())).json()
    const theirs = await (await AuthJs(request(), config() as any)).json()
    expect(ours.user).toEqual(theirs.user)
    expect(ours.user).toStrictEqual({ name: null, email: "ada@example.com" })
  })
})

import { afterEach, describe, expect, it, vi } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { readSession, runtimeFor, type CookieSink } from "@portcullis/core/integration"
import { encode } from "@portcullis/core/jwt"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger, credentialsConfig, SECRET } from "../helpers.js"

/**
 * Server-side session reads (`readSession`: Express's `getSession(req)`, Next.js's
 * `auth()`) answered by the session lane without building a Web `Request`
 * (`AuthRuntime.sessionCheck`). Every answer must be the full check's: the reference is the
 * same configuration with a no-op `session` event, which keeps every read on the Web path.
 * Both sides are asked twice per cookie (the second read is the cached one), and their
 * sessions, the cookies they hand the app and their log lines must match.
 */
const COOKIE = "authjs.session-token"
const ORIGIN = "http://localhost:3000"
const NEW_SECRET = "the-new-secret-with-at-least-32-characters"
const claims = { name: "Ada Lovelace", email: "ada@example.com", picture: "https://example.com/ada.png", sub: "user-ada" }

afterEach(() => vi.useRealTimers())

interface Side {
  config: AuthConfig
  lines: string[]
}

function side(extra: Partial<AuthConfig>, reference: boolean): Side {
  const { lines, logger } = captureLogger()
  const config = credentialsConfig({ logger, ...extra, ...(reference && { events: { ...extra.events, session: async () => {} } }) })
  return { config, lines }
}

/** A read on one side: the session, and the cookies handed to the sink (name and attributes: re-issued values carry a fresh IV). */
async function read(s: Side, cookie: string | undefined, origin = ORIGIN) {
  const cookies: string[] = []
  const sink: CookieSink = (c) => cookies.push(`${c.name} maxAge=${c.options.maxAge ?? "-"}`)
  try {
    return { session: await readSession(origin, cookie, s.config, sink), cookies }
  } catch (error) {
    return { thrown: `${(error as Error).name}: ${(error as Error).message}`, cookies }
  }
}

/** Warms both sides (the origin worked out, the configuration found sound), then compares two reads of each cookie. */
async function compare(extra: Partial<AuthConfig>, cookies: [string, string | undefined][], origin = ORIGIN) {
  const native = side(extra, false)
  const web = side(extra, true)
  await read(native, undefined, origin)
  await read(web, undefined, origin)
  for (const [label, cookie] of cookies) {
    for (const attempt of ["first", "cached"]) {
      native.lines.length = 0
      web.lines.length = 0
      const got = await read(native, cookie, origin)
      const want = await read(web, cookie, origin)
      expect(got, `${label} (${attempt})`).toEqual(want)
      // Log lines carry stacks with the call path, which differs: compare their first lines.
      const heads = (lines: string[]) => lines.map((l) => l.split("\n")[0])
      expect(heads(native.lines), `${label} (${attempt}) logs`).toEqual(heads(web.lines))
    }
  }
  return native
}

function mint(payload: Record<string, unknown> = claims, secret: string | string[] = SECRET, maxAge?: number) {
  return encode({ token: payload, secret, salt: COOKIE, ...(maxAge !== undefined && { maxAge }) })
}

function flip(token: string, at: number): string {
  const i = token[at + 1] === "." ? at - 1 : at
  return token.slice(0, i) + (token[i] === "A" ? "g" : "A") + token.slice(i + 1)
}

describe("server-side JWT session reads without a Web Request", () => {
  it("answer what the Web path answers for valid, expired, tampered, chunked, foreign and rotated cookies", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const fresh = await mint()
    const shortLived = await mint(claims, SECRET, 60)
    const rotated = await mint(claims, SECRET)
    const big = await mint({ ...claims, blob: "x".repeat(6000) })
    vi.setSystemTime(new Date("2026-11-20T12:00:00.000Z"))
    const stale = await mint()
    vi.setSystemTime(new Date("2026-11-25T12:00:00.000Z"))
    const chunked = [0, 1, 2].map((i) => `${COOKIE}.${i}=${big.slice(i * 3000, (i + 1) * 3000)}`).join("; ")
    const cookies: [string, string | undefined][] = [
      ["none", undefined],
      ["empty header", ""],
      ["another cookie only", "theme=dark"],
      ["empty session cookie", `${COOKIE}=`],
      ["fresh", `${COOKIE}=${fresh}`],
      ["fresh among other cookies", `a=1; ${COOKIE}=${fresh}; b=2`],
      ["stale (re-issued)", `${COOKIE}=${stale}`],
      ["chunked", chunked],
      ["not a token", `${COOKIE}=not-a-token`],
      ["secure-prefixed name on http", `__Secure-${COOKIE}=${fresh}`],
      ...[0, 10, fresh.indexOf(".") + 1, Math.floor(fresh.length / 2), fresh.length - 2].map((at): [string, string] => [`tampered at ${at}`, `${COOKIE}=${flip(fresh, at)}`]),
    ]
    await compare({}, cookies)
    // An expired token: valid for a minute, read, then the clock passes its expiry.
    const native = side({}, false)
    const web = side({}, true)
    for (const s of [native, web]) await read(s, `${COOKIE}=${shortLived}`)
    vi.setSystemTime(new Date("2026-11-25T12:02:00.000Z"))
    expect(await read(native, `${COOKIE}=${shortLived}`)).toEqual(await read(web, `${COOKIE}=${shortLived}`))
    expect((await read(native, `${COOKIE}=${shortLived}`)).session).toBeNull()
    vi.setSystemTime(new Date("2026-11-25T12:00:00.000Z"))
    // Rotated secret: the old secret's token is still read (and re-issued each time).
    await compare({ secret: [NEW_SECRET, SECRET] }, [["rotated-out secret", `${COOKIE}=${rotated}`], ["new secret", `${COOKIE}=${await mint(claims, NEW_SECRET)}`]])
    // A token of another secret altogether.
    await compare({ secret: NEW_SECRET }, [["foreign secret", `${COOKIE}=${fresh}`]])
  })

  it("on https the __Secure- cookie is the session, as on the Web path", async () => {
    const fresh = await mint(claims, SECRET)
    const secure = await encode({ token: claims, secret: SECRET, salt: `__Secure-${COOKIE}` })
    await compare({}, [["plain name on https", `${COOKIE}=${fresh}`], ["secure name", `__Secure-${COOKIE}=${secure}`]], "https://example.com")
  })

  it("answers a remembered token without the full check (no Request built), and counts it like the lane", async () => {
    const runtime = createAuth(credentialsConfig({ logger: captureLogger().logger }))
    const cookie = `${COOKIE}=${await mint()}`
    // Before the configuration was found sound and the origin worked out: the full check.
    expect(typeof runtime.sessionCheck(ORIGIN, cookie)).not.toBe("string")
    await readSession(ORIGIN, cookie, runtime)
    const answer = runtime.sessionCheck(ORIGIN, cookie)
    expect(typeof answer).toBe("string")
    expect(JSON.parse(answer as string).user.email).toBe("ada@example.com")
    // An origin never worked out is not answered natively: it goes through the full check's host rules.
    expect(typeof runtime.sessionCheck("http://other.example", cookie)).not.toBe("string")
    // Nor a string that is not a serialised origin.
    expect(typeof runtime.sessionCheck("http://LOCALHOST:3000", cookie)).not.toBe("string")
  })

  it("a refused host still throws InvalidRequest, as before", async () => {
    const config = credentialsConfig({ trustHost: false, trustedOrigins: ["https://app.example.com"], logger: captureLogger().logger })
    const cookie = `${COOKIE}=${await encode({ token: claims, secret: SECRET, salt: `__Secure-${COOKIE}` })}`
    expect((await readSession("https://app.example.com", `__Secure-${cookie}`, config))?.user?.email).toBe("ada@example.com")
    expect(typeof runtimeFor(config).sessionCheck("https://app.example.com", `__Secure-${cookie}`)).toBe("string")
    for (let i = 0; i < 2; i++) {
      await expect(readSession("http://evil.example", cookie, config)).rejects.toMatchObject({ name: "InvalidRequest" })
      expect(typeof runtimeFor(config).sessionCheck("http://evil.example", cookie)).not.toBe("string")
    }
  })

  it("many distinct tokens: every native answer equals the Web path's", async () => {
    const native = side({}, false)
    const web = side({}, true)
    for (let i = 0; i < 200; i++) {
      const payload = { ...claims, name: `User ${i} "${"\u{1F511}".repeat(i % 3)}"`, email: i % 7 ? `u${i}@example.com` : null, picture: i % 5 ? null : undefined }
      const cookie = `${COOKIE}=${await mint(payload)}`
      for (let k = 0; k < 2; k++) expect(await read(native, cookie), `token ${i}`).toEqual(await read(web, cookie))
    }
  })
})

describe("server-side database session reads without a Web Request", () => {
  it("answer what the Web path answers for live, due, expired, unknown and revoked rows", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: new Date("2026-11-25T12:00:00.000Z") })
    const now = Date.now()
    const day = 24 * 60 * 60 * 1000
    const seed = async () => {
      const adapter = MemoryAdapter()
      await adapter.createUser!({ id: "user-ada", name: "Ada Lovelace", email: "ada@example.com", emailVerified: null })
      await adapter.createSession!({ sessionToken: "live", userId: "user-ada", expires: new Date(now + 30 * day) })
      await adapter.createSession!({ sessionToken: "due", userId: "user-ada", expires: new Date(now + 20 * day) })
      await adapter.createSession!({ sessionToken: "expired", userId: "user-ada", expires: new Date(now - 1000) })
      await adapter.createSession!({ sessionToken: "revoked", userId: "user-ada", expires: new Date(now + 30 * day) })
      return adapter
    }
    const nativeAdapter = await seed()
    const webAdapter = await seed()
    const native = side({ adapter: nativeAdapter, session: { strategy: "database" } }, false)
    const web = side({ adapter: webAdapter, session: { strategy: "database" } }, true)
    await read(native, undefined)
    await read(web, undefined)
    await read(native, `${COOKIE}=revoked`)
    await read(web, `${COOKIE}=revoked`)
    await nativeAdapter.deleteSession!("revoked")
    await webAdapter.deleteSession!("revoked")
    for (const token of ["live", "due", "expired", "revoked", "unknown", ""]) {
      for (const attempt of ["first", "again"]) {
        expect(await read(native, `${COOKIE}=${token}`), `${token} (${attempt})`).toEqual(await read(web, `${COOKIE}=${token}`))
      }
    }
    expect((await read(native, `${COOKIE}=live`)).session?.user?.email).toBe("ada@example.com")
    expect((await read(native, `${COOKIE}=revoked`)).session).toBeNull()
  })

  it("a store failure is ServiceUnavailable on both paths, never a sign-out", async () => {
    const broken = (adapter: ReturnType<typeof MemoryAdapter>) => ({ ...adapter, getSessionAndUser: async () => { throw new Error("connection refused") } })
    const native = side({ adapter: broken(MemoryAdapter()), session: { strategy: "database" } }, false)
    const web = side({ adapter: broken(MemoryAdapter()), session: { strategy: "database" } }, true)
    await read(native, undefined)
    await read(web, undefined)
    const got = await read(native, `${COOKIE}=live`)
    expect(got).toEqual(await read(web, `${COOKIE}=live`))
    expect(got.thrown).toMatch(/^ServiceUnavailable/)
    // The lane's reading was handed to the full check: the runtime asked the store once.
    let reads = 0
    const counted = MemoryAdapter()
    const runtime = runtimeFor(credentialsConfig({ logger: captureLogger().logger, session: { strategy: "database" }, adapter: { ...counted, getSessionAndUser: async (t: string) => { reads++; throw new Error(`down ${t}`) } } }))
    await readSession(ORIGIN, undefined, runtime)
    reads = 0
    await expect(readSession(ORIGIN, `${COOKIE}=live`, runtime)).rejects.toMatchObject({ name: "ServiceUnavailable" })
    expect(reads).toBe(1)
  })
})

import { describe, expect, it, vi } from "vitest"
import Credentials from "@portcullis/core/providers/credentials"

/**
 * T32 for Qwik City. Qwik City builds `ev.url` from the `Host` header (or
 * `PROTOCOL_HEADER`/`HOST_HEADER`), and `ev.request` keeps every forwarded header. `/auth/*`
 * goes to core, which checks both; the session read of every other request and the
 * sign-in/sign-out actions check `ev.url` with core's rule before building a URL.
 *
 * Qwik City itself only loads inside a Qwik app (see validate.test.ts), so its three
 * wrappers are replaced by identities: the entry point's own code runs as published.
 */
vi.mock("@builder.io/qwik", () => ({
  implicit$FirstArg: (fn: (qrl: unknown) => unknown) => fn,
  inlinedQrl: (fn: unknown) => fn,
}))
vi.mock("@builder.io/qwik-city", () => ({
  globalActionQrl: (action: unknown, validator: unknown) => ({ action, validator }),
  routeLoaderQrl: (loader: unknown) => loader,
  validatorQrl: (validator: unknown) => validator,
}))

const { getSessionData, InvalidRequest, QwikAuthQrl } = await import("@portcullis/qwik")

const config = {
  secret: "qwik-unit-test-secret-0123456789abcdef-0123",
  trustHost: true,
  // Core logs every refusal; these are the expected ones.
  logger: { error: () => {} },
  providers: [Credentials({ credentials: { username: {} }, authorize: async () => null })],
}

type Thrown = { sent?: { status: number; body: string; headers: Headers }; error?: { status: number; message: string } }

/** A request event with what the integration touches; `send` and `error` return what Qwik would throw. */
function fakeEvent(url: string, init: RequestInit = {}) {
  const headers = new Headers()
  let status = 200
  return {
    url: new URL(url),
    request: new Request(url, init),
    sharedMap: new Map<string, unknown>(),
    headers,
    cookie: { set: vi.fn() },
    status: (s: number) => void (status = s),
    send: (s: number, body: Uint8Array): Thrown => ({ sent: { status: s ?? status, body: new TextDecoder().decode(body), headers } }),
    error: (s: number, message: string): Thrown => ({ error: { status: s, message } }),
  }
}

async function thrownBy(run: () => Promise<unknown>): Promise<Thrown> {
  try {
    await run()
  } catch (thrown) {
    return thrown as Thrown
  }
  throw new Error("expected the handler to answer by throwing")
}

function expectCore400(thrown: Thrown) {
  expect(thrown.sent?.status).toBe(400)
  expect(thrown.sent!.headers.get("content-type")).toContain("application/json")
  expect(JSON.parse(thrown.sent!.body)).toMatchObject({ error: "InvalidRequest" })
  expect(thrown.sent!.body).not.toContain("null/")
}

/** Request URLs Qwik City builds from a hostile `Host` or protocol header that still parse. */
const hostileUrls = [
  ["a javascript: scheme", "javascript://app.example"],
  ["an ftp: scheme", "ftp://app.example"],
  ["port 0", "http://app.example:0"],
]

const qwikAuth = () => QwikAuthQrl((() => config) as never) as unknown as {
  onRequest(ev: unknown): Promise<void>
  useSignIn: { action(input: unknown, ev: unknown): Promise<never> }
  useSignOut: { action(input: unknown, ev: unknown): Promise<never> }
}

describe("Qwik: onRequest hands /auth/* to core, which checks host and forwarded headers", () => {
  it.each(hostileUrls)("a request URL with %s → core's 400", async (_, origin) => {
    expectCore400(await thrownBy(() => qwikAuth().onRequest(fakeEvent(`${origin}/auth/providers`))))
  })

  it.each([
    ["x-forwarded-host", "evil.example/x"],
    ["x-forwarded-host", "a@evil.example"],
    ["x-forwarded-host", "x:99999"],
    ["x-forwarded-proto", "javascript"],
  ])("a forged %s: %s → core's 400", async (name, value) => {
    expectCore400(await thrownBy(() => qwikAuth().onRequest(fakeEvent("http://app.example/auth/signin", { headers: { [name]: value } }))))
  })
})

describe("Qwik: the session read of every other request refuses a malformed origin", () => {
  it.each(hostileUrls)("onRequest for a page, request URL with %s → core's 400", async (_, origin) => {
    expectCore400(await thrownBy(() => qwikAuth().onRequest(fakeEvent(`${origin}/dashboard`))))
  })

  it.each(hostileUrls)("getSessionData, request URL with %s → a typed InvalidRequest", async (_, origin) => {
    await expect(getSessionData(new Request(`${origin}/dashboard`), config)).rejects.toBeInstanceOf(InvalidRequest)
  })

  it("a well-formed origin reads the (absent) session", async () => {
    const ev = fakeEvent("http://app.example:5173/dashboard")
    await qwikAuth().onRequest(ev)
    expect(ev.sharedMap.get("portcullis.session")).toEqual({ session: null })
  })
})

describe("Qwik: useSignIn and useSignOut refuse a malformed origin with a 400", () => {
  it.each(hostileUrls)("request URL with %s", async (_, origin) => {
    const { useSignIn, useSignOut } = qwikAuth()
    const post = () => fakeEvent(`${origin}/?qaction=x`, { method: "POST" })
    const signIn = await thrownBy(() => useSignIn.action({ providerId: "credentials" }, post()))
    const signOut = await thrownBy(() => useSignOut.action({}, post()))
    for (const thrown of [signIn, signOut]) {
      expect(thrown.error?.status).toBe(400)
      expect(thrown.error!.message).toMatch(/^InvalidRequest: /)
    }
  })
})

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { NextRequest } from "next/server"
import NextAuth, { ServiceUnavailable } from "@portcullis/next"
import { getSession, getSessionState, signOut } from "../src/react.js"
import { cookiePairs, nextRequestStore, origin } from "./helpers.js"
import { outageFixture } from "../../core/test/outage-fixture.js"

vi.mock("next/headers", () => ({
  headers: async () => nextRequestStore.headers,
  cookies: async () => nextRequestStore.jar(),
}))

beforeEach(() => nextRequestStore.reset())

/** Issue #13: with the session store down, `auth()` reports unavailable, never `null`. */
describe("auth() while the session store is down", () => {
  const store = outageFixture()
  const { auth } = NextAuth(store.config({ basePath: undefined }))

  it("auth() in Server Components rejects with ServiceUnavailable, and reads the session after recovery", async () => {
    nextRequestStore.reset({ cookie: await store.signedInCookie() })
    store.down = true
    try {
      await expect(auth()).rejects.toBeInstanceOf(ServiceUnavailable)
    } finally {
      store.down = false
    }
    expect(await auth()).toMatchObject({ user: { name: "Ada Lovelace" } })
  })

  it("the proxy and wrapped handlers answer 503 with Retry-After, without running the handler", async () => {
    const cookie = await store.signedInCookie()
    const handler = vi.fn(() => Response.json({ ok: true }))
    const wrapped = auth(handler)
    store.down = true
    try {
      const response = await wrapped(new NextRequest(`${origin}/dashboard`, { headers: { cookie } }), {})
      expect(response.status).toBe(503)
      expect(response.headers.get("retry-after")).toBe("5")
      expect(await response.json()).toMatchObject({ error: "ServiceUnavailable" })
      const proxy = await auth(new NextRequest(`${origin}/dashboard`, { headers: { cookie } }))
      expect(proxy.status).toBe(503)
    } finally {
      store.down = false
    }
    expect(handler).not.toHaveBeenCalled()
  })

  it("10 concurrent auth() calls during the outage all reject with ServiceUnavailable", async () => {
    nextRequestStore.reset({ cookie: await store.signedInCookie() })
    store.down = true
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => auth()))
      for (const o of outcomes) expect(o.status === "rejected" && o.reason instanceof ServiceUnavailable).toBe(true)
    } finally {
      store.down = false
    }
  })
})

describe("the React client while the session store is down", () => {
  const store = outageFixture()
  const { handlers } = NextAuth(store.config({ basePath: undefined }))
  const posted: unknown[] = []
  afterEach(() => vi.unstubAllGlobals())

  /** fetch routed to the real route handlers with a cookie jar, as a browser on `origin`. */
  async function browser() {
    const jar = cookiePairs([`${await store.signedInCookie()}; Path=/`])
    vi.stubGlobal("window", { location: { origin, href: `${origin}/shop`, reload: vi.fn() } })
    vi.stubGlobal("BroadcastChannel", class { postMessage = (m: unknown) => void posted.push(m); addEventListener() {} removeEventListener() {} })
    vi.stubGlobal("fetch", async (input: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers)
      headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
      if (init.method === "POST") headers.set("origin", origin)
      const request = new NextRequest(new URL(input, origin), { ...init, headers })
      const response = await (request.method === "POST" ? handlers.POST : handlers.GET)(request)
      for (const [name, value] of cookiePairs(response.headers.getSetCookie())) value ? jar.set(name, value) : jar.delete(name)
      return response
    })
    return jar
  }

  it("getSession() stays Auth.js-compatible (null); getSessionState() says unavailable", async () => {
    await browser()
    store.down = true
    try {
      expect(await getSession()).toBeNull()
      expect(await getSessionState()).toEqual({ unavailable: true })
    } finally {
      store.down = false
    }
    expect(await getSessionState()).toMatchObject({ session: { user: { name: "Ada Lovelace" } } })
  })

  it("signOut() during the outage lands on the error page, keeps the cookie and tells no other tab", async () => {
    const jar = await browser()
    posted.length = 0
    store.down = true
    try {
      const result = await signOut({ redirect: false })
      expect(result?.url).toBe(`${origin}/api/auth/error?error=ServiceUnavailable`)
    } finally {
      store.down = false
    }
    expect(jar.get("authjs.session-token")).toBeTruthy()
    expect(posted).toEqual([])
  })
})

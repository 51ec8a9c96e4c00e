import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { NextRequest } from "next/server"
import NextAuth from "@portcullis/next"
import { getCsrfToken, getProviders, getSession, signIn, signOut } from "../src/react.js"
import { createAuthClient, onSessionChange } from "@portcullis/core/client"
import { cookiePairs, origin, testConfig } from "./helpers.js"

/**
 * The browser calls of @portcullis/next/react against the real route handlers: fetch is
 * routed to `handlers.GET/POST` with a cookie jar, as a browser on `origin` would send it.
 * `window` is the part of it these functions touch (location), and BroadcastChannel a
 * recorder, since Node's real one would keep the test process alive.
 */
// The client opens a channel per message; the recorder outlives each test's setup.
const posted: unknown[] = []

function browser() {
  const { handlers } = NextAuth(
    testConfig({
      callbacks: { jwt: ({ token, trigger, session }) => (trigger === "update" && typeof session?.name === "string" ? { ...token, name: session.name } : token) },
    }),
  )
  const jar = new Map<string, string>()
  posted.length = 0
  const location = { origin, href: `${origin}/shop`, reload: vi.fn() }
  vi.stubGlobal("window", { location })
  // Delivers to every other open channel, as the browser's does (this page's listeners too).
  const open = new Set<{ listeners: Set<() => void> }>()
  vi.stubGlobal(
    "BroadcastChannel",
    class {
      listeners = new Set<() => void>()
      constructor() {
        open.add(this)
      }
      postMessage(message: unknown) {
        posted.push(message)
        for (const channel of open) if (channel !== this) for (const listener of channel.listeners) listener()
      }
      addEventListener(_type: string, listener: () => void) {
        this.listeners.add(listener)
      }
      removeEventListener(_type: string, listener: () => void) {
        this.listeners.delete(listener)
      }
      close() {
        open.delete(this)
      }
    },
  )
  vi.stubGlobal("fetch", async (input: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
    if (init.method === "POST") headers.set("origin", origin)
    // The client fetches paths, which a browser resolves against the page.
    const request = new NextRequest(new URL(input, origin), { ...init, headers })
    const response = await (request.method === "POST" ? handlers.POST : handlers.GET)(request)
    for (const [name, value] of cookiePairs(response.headers.getSetCookie())) {
      if (value) jar.set(name, value)
      else jar.delete(name)
    }
    return response
  })
  return { jar, posted, location }
}

afterEach(() => vi.unstubAllGlobals())

describe("React client calls", () => {
  let b: ReturnType<typeof browser>
  beforeEach(() => {
    b = browser()
  })

  it("lists providers and hands out a CSRF token", async () => {
    expect(Object.keys((await getProviders())!)).toEqual(["credentials"])
    expect(await getCsrfToken()).toMatch(/^[0-9a-f]{64}$/)
  })

  it("signIn(credentials, { redirect: false }) reports a refusal with ok: false and the error code", async () => {
    const result = await signIn("credentials", { username: "ada", password: "wrong", redirect: false })
    expect(result).toEqual({ error: "CredentialsSignin", code: "credentials", status: 200, ok: false, url: null })
    expect(await getSession()).toBeNull()
    expect(b.posted).toEqual([])
  })

  it("signIn(credentials, { redirect: false }) signs in, returns the URL and tells other tabs", async () => {
    const result = await signIn("credentials", { username: "ada", password: "lovelace", redirect: false, redirectTo: "/orders" })
    expect(result).toEqual({ error: undefined, code: undefined, status: 200, ok: true, url: `${origin}/orders` })
    expect((await getSession())?.user?.name).toBe("Ada")
    expect(b.posted).toEqual([{ event: "session" }])
  })

  it("signIn navigates by default: to the landing page, or to the sign-in page without a provider", async () => {
    await signIn("credentials", { username: "ada", password: "lovelace" })
    expect(b.location.href).toBe(`${origin}/shop`)
    expect(b.jar.has("authjs.session-token")).toBe(true)
    await signIn(undefined, { redirectTo: "/cart" })
    expect(b.location.href).toBe(`/api/auth/signin?callbackUrl=%2Fcart`)
  })

  it("core's updateSession (useSession().update) sends data to the jwt callback and returns the new session", async () => {
    await signIn("credentials", { username: "ada", password: "lovelace", redirect: false })
    const listener = vi.fn()
    const stop = onSessionChange(listener)
    const { updateSession } = createAuthClient({ basePath: "/api/auth" })
    expect((await updateSession({ name: "Augusta" }))?.user?.name).toBe("Augusta")
    stop()
    expect(listener).toHaveBeenCalledOnce()
    expect((await getSession())?.user?.name).toBe("Augusta")
  })

  it("signOut({ redirect: false }) ends the session and returns the URL", async () => {
    await signIn("credentials", { username: "ada", password: "lovelace", redirect: false })
    b.posted.length = 0
    expect(await signOut({ redirect: false, redirectTo: "/bye" })).toEqual({ url: `${origin}/bye` })
    expect(await getSession()).toBeNull()
    expect(b.posted).toEqual([{ event: "session" }])
  })
})

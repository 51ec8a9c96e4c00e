import { IncomingMessage, ServerResponse } from "node:http"
import { Socket } from "node:net"
import { beforeEach, describe, expect, it, vi } from "vitest"
import { NextRequest } from "next/server"
import NextAuth, { type NextAuthConfig } from "@portcullis/next"
import { cookieHeader, nextRequestStore, origin, signInThroughHandlers, testConfig } from "./helpers.js"

// next/headers reads a request store that only Next's server creates; everything else here
// (NextRequest, NextResponse, the route handlers) is the real thing.
vi.mock("next/headers", () => ({
  headers: async () => nextRequestStore.headers,
  cookies: async () => nextRequestStore.jar(),
}))

beforeEach(() => nextRequestStore.reset())

function pagesPair(headers: Record<string, string>): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(new Socket())
  Object.assign(req.headers, headers)
  return { req, res: new ServerResponse(req) }
}

describe("auth()", () => {
  it("reads the session in Server Components from next/headers, and null without a cookie", async () => {
    const { handlers, auth } = NextAuth(testConfig())
    expect(await auth()).toBeNull()
    const jar = await signInThroughHandlers(handlers)
    nextRequestStore.reset({ cookie: cookieHeader(jar) })
    const session = await auth()
    expect(session).toMatchObject({ user: { name: "Ada", email: "ada@example.test" } })
    expect(new Date(session!.expires).getTime()).toBeGreaterThan(Date.now())
  })

  it("sees a cookie a Server Action set earlier in the same request (cookies(), not the Cookie header)", async () => {
    const { handlers, auth } = NextAuth(testConfig())
    const jar = await signInThroughHandlers(handlers)
    nextRequestStore.jar().set("authjs.session-token", jar.get("authjs.session-token")!)
    expect(nextRequestStore.headers.get("cookie")).toBeNull()
    expect((await auth())?.user?.name).toBe("Ada")
  })

  it("throws on a configuration error instead of reporting everyone signed out", async () => {
    const { auth } = NextAuth({ ...testConfig(), secret: undefined, logger: { error: () => {} } })
    vi.stubEnv("AUTH_SECRET", "")
    vi.stubEnv("NEXTAUTH_SECRET", "")
    try {
      await expect(auth()).rejects.toThrow(/problem with the server configuration/)
    } finally {
      vi.unstubAllEnvs()
    }
  })

  it("as the proxy: lets requests through with NextResponse.next() when authorized allows", async () => {
    const { auth } = NextAuth(testConfig())
    const response = await auth(new NextRequest(`${origin}/anything`))
    expect(response.headers.get("x-middleware-next")).toBe("1")
  })

  it("as the proxy: sends unauthorized requests to the sign-in page with the path as callbackUrl", async () => {
    const { auth } = NextAuth(testConfig({ callbacks: { authorized: ({ auth }) => !!auth } }))
    const response = await auth(new NextRequest(`${origin}/dashboard/a?tab=2`))
    expect(response.status).toBe(302)
    const location = new URL(response.headers.get("location")!)
    expect(location.origin + location.pathname).toBe(`${origin}/api/auth/signin`)
    expect(location.searchParams.get("callbackUrl")).toBe("/dashboard/a?tab=2")
  })

  it("as the proxy: never redirects the sign-in page itself or the auth endpoints (no loop, sign-in stays possible)", async () => {
    const authorized = vi.fn(() => false)
    const { auth } = NextAuth(testConfig({ pages: { signIn: "/login" }, callbacks: { authorized } }))
    for (const path of ["/login", "/api/auth/callback/credentials", "/api/auth/csrf"]) {
      const response = await auth(new NextRequest(`${origin}${path}`))
      expect(response.headers.get("x-middleware-next"), path).toBe("1")
    }
    const response = await auth(new NextRequest(`${origin}/private`))
    expect(new URL(response.headers.get("location")!).pathname).toBe("/login")
    expect(authorized).toHaveBeenCalledTimes(4)
  })

  it("as the proxy: authorized gets a NextRequest (request.nextUrl), also when auth() was handed a plain Request", async () => {
    const seen: string[] = []
    const { auth } = NextAuth(testConfig({ callbacks: { authorized: ({ request }) => (seen.push(request.nextUrl.pathname), request.nextUrl.pathname === "/open") } }))
    expect((await auth(new Request(`${origin}/open`))).headers.get("x-middleware-next")).toBe("1")
    expect((await auth(new NextRequest(`${origin}/closed`))).status).toBe(302)
    expect(seen).toEqual(["/open", "/closed"])
  })

  it("as the proxy: a Response returned by authorized is the answer", async () => {
    const { auth } = NextAuth(testConfig({ callbacks: { authorized: ({ auth }) => (auth ? true : Response.json({ error: "nope" }, { status: 401 })) } }))
    const response = await auth(new NextRequest(`${origin}/api/data`))
    expect(response.status).toBe(401)
    expect(await response.json()).toEqual({ error: "nope" })
  })

  it("auth(fn) wraps a route handler: req.auth holds the session, and a refreshed cookie is forwarded", async () => {
    // updateAge 0: every check re-issues the JWT, so the check has a Set-Cookie to forward.
    const { handlers, auth } = NextAuth(testConfig({ session: { updateAge: 0 } }))
    const jar = await signInThroughHandlers(handlers)
    const GET = auth((req, ctx: { params: Promise<{ id: string }> }) => Response.redirect(`${origin}/to/${req.auth?.user?.name}`, 302))
    const response = await GET(new NextRequest(`${origin}/api/me`, { headers: { cookie: cookieHeader(jar) } }), { params: Promise.resolve({ id: "1" }) })
    expect(response.headers.get("location")).toBe(`${origin}/to/Ada`)
    // Response.redirect has immutable headers: the cookie still got through.
    expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  })

  it("auth(fn) honours authorized: false even with a wrapped function (next-auth would run the function)", async () => {
    const handler = vi.fn(() => new Response("secret"))
    const { auth } = NextAuth(testConfig({ callbacks: { authorized: ({ auth }) => !!auth } }))
    const response = await auth(handler)(new NextRequest(`${origin}/reports`), {})
    expect(response.status).toBe(302)
    expect(handler).not.toHaveBeenCalled()
  })

  it("auth(req, res) in a Pages API route: session, and Set-Cookie appended to the Node response", async () => {
    const { handlers, auth } = NextAuth(testConfig({ session: { updateAge: 0 } }))
    const jar = await signInThroughHandlers(handlers)
    const { req, res } = pagesPair({ host: "app.test", cookie: cookieHeader(jar) })
    res.setHeader("set-cookie", ["theme=dark"])
    const session = await auth(req, res)
    expect(session?.user?.email).toBe("ada@example.test")
    const setCookie = res.getHeader("set-cookie") as string[]
    expect(setCookie[0]).toBe("theme=dark")
    expect(setCookie.some((c) => c.startsWith("authjs.session-token="))).toBe(true)
  })

  it("auth(context) in getServerSideProps", async () => {
    const { handlers, auth } = NextAuth(testConfig())
    const jar = await signInThroughHandlers(handlers)
    const context = { ...pagesPair({ host: "app.test", cookie: cookieHeader(jar) }), query: {}, resolvedUrl: "/" }
    expect((await auth(context))?.user?.name).toBe("Ada")
    expect(await auth(pagesPair({ host: "app.test" }))).toBeNull()
  })

  it("shapes the server session as next-auth does ({ user, ...session }) but never exposes a database sessionToken", async () => {
    const { MemoryAdapter } = await import("@portcullis/memory-adapter")
    const { handlers, auth } = NextAuth(testConfig({ adapter: MemoryAdapter() }))
    const jar = await signInThroughHandlers(handlers)
    nextRequestStore.reset({ cookie: cookieHeader(jar) })
    const session = (await auth()) as Record<string, any>
    expect(session.user).toMatchObject({ id: expect.any(String), email: "ada@example.test" })
    expect(session.userId).toBe(session.user.id)
    expect(JSON.stringify(session)).not.toContain(jar.get("authjs.session-token"))
    expect(session).not.toHaveProperty("sessionToken")
  })

  it("gives the browser core's session shape from the same runtime: no user id, no token, no row", async () => {
    const { MemoryAdapter } = await import("@portcullis/memory-adapter")
    for (const adapter of [undefined, MemoryAdapter()]) {
      const { handlers, auth } = NextAuth(testConfig({ adapter }))
      const jar = await signInThroughHandlers(handlers)
      const browser = await (await handlers.GET(new NextRequest(`${origin}/api/auth/session`, { headers: { cookie: cookieHeader(jar) } }))).json()
      expect(Object.keys(browser).sort()).toEqual(["expires", "user"])
      expect(Object.keys(browser.user).filter((k) => !["name", "email", "image"].includes(k))).toEqual([])
      nextRequestStore.reset({ cookie: cookieHeader(jar) })
      // Concurrent server and browser reads do not leak the server shape into the browser's.
      const [server, again] = await Promise.all([auth(), handlers.GET(new NextRequest(`${origin}/api/auth/session`, { headers: { cookie: cookieHeader(jar) } })).then((r) => r.json())])
      expect(server).toMatchObject({ user: { name: "Ada" } })
      if (adapter) expect(server).toMatchObject({ user: { id: expect.any(String) }, userId: expect.any(String) })
      expect(again).toEqual(browser)
    }
  })
})

describe("NextAuth(config function)", () => {
  it("calls the function with the request in handlers and the proxy, and with undefined in Server Components", async () => {
    const base = testConfig()
    const seen: (NextRequest | undefined)[] = []
    const { handlers, auth } = NextAuth((request) => {
      seen.push(request)
      return base
    })
    const request = new NextRequest(`${origin}/api/auth/providers`)
    await handlers.GET(request)
    await auth(new NextRequest(`${origin}/page`))
    await auth()
    expect(seen[0]).toBe(request)
    expect(seen[1]).toBeInstanceOf(NextRequest)
    expect(seen[2]).toBeUndefined()
  })

  it("may answer differently per request", async () => {
    const day: NextAuthConfig = testConfig({ theme: { brandColor: "#111111" } })
    const night: NextAuthConfig = testConfig({ theme: { brandColor: "#eeeeee", colorScheme: "dark" } })
    const { handlers } = NextAuth(async (request) => (request?.headers.get("x-theme") === "night" ? night : day))
    const page = (headers: Record<string, string>) => handlers.GET(new NextRequest(`${origin}/api/auth/signin`, { headers })).then((r) => r.text())
    expect(await page({ "x-theme": "night" })).toContain("#eeeeee")
    expect(await page({})).toContain("#111111")
  })
})

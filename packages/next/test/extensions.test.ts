/**
 * Issue 31: the configured extensions' server functions through Next.js (`extensions()` of
 * `NextAuth`'s result) in Server Components, Server Actions and Route Handlers, bound to the
 * request `next/headers` describes — and the extension's routes served by the route
 * handlers under the base path. The extension is the shared fixture.
 */
import { beforeEach, describe, expect, it, vi } from "vitest"
import { NextRequest } from "next/server"
import NextAuth, { NotSignedIn } from "@portcullis/next"
import { probeExtension } from "../../core/test/extensions/fixture.js"
import { cookieHeader, nextRequestStore, origin, signInThroughHandlers, testConfig } from "./helpers.js"

// next/headers only exists inside Next's server: the recording stand-in of helpers.ts.
vi.mock("next/headers", () => ({
  headers: async () => nextRequestStore.headers,
  cookies: async () => nextRequestStore.jar(),
}))

beforeEach(() => nextRequestStore.reset())

function setup() {
  const probe = probeExtension()
  return { probe, ...NextAuth(testConfig({ extensions: [probe.extension] })) }
}

describe("extensions' server functions in Next.js", () => {
  it("see the signed-in user in a Server Component, and no one without the cookie", async () => {
    const { handlers, extensions } = setup()
    const jar = await signInThroughHandlers(handlers)
    nextRequestStore.reset({ cookie: cookieHeader(jar) })
    expect(await (await extensions()).probe.whoami()).toBe("u1")
    nextRequestStore.reset()
    expect(await (await extensions()).probe.whoami()).toBeNull()
  })

  it("throw NotSignedIn from requireSession without a session", async () => {
    const { extensions } = setup()
    await expect((await extensions()).probe.mustBeSignedIn()).rejects.toBeInstanceOf(NotSignedIn)
  })

  it("serve a same-site Server Action and refuse a cross-site one before the function runs", async () => {
    const { handlers, extensions, probe } = setup()
    const jar = await signInThroughHandlers(handlers)
    nextRequestStore.reset({ cookie: cookieHeader(jar), origin, "next-action": "7f3a" })
    expect(await (await extensions()).probe.mustBeSignedIn()).toBe("u1")
    probe.ran.length = 0
    nextRequestStore.reset({ cookie: cookieHeader(jar), origin: "https://evil.example", "next-action": "7f3a" })
    await expect((async () => (await extensions()).probe.mustBeSignedIn())()).rejects.toMatchObject({ type: "MissingCSRF" })
    expect(probe.ran).toEqual([])
  })

  it("refuse a cross-site POST to a Route Handler that passes its request", async () => {
    const { handlers, extensions, probe } = setup()
    const jar = await signInThroughHandlers(handlers)
    const request = new NextRequest(`${origin}/api/notes`, { method: "POST", headers: { origin: "https://evil.example" } })
    nextRequestStore.reset({ cookie: cookieHeader(jar), origin: "https://evil.example" })
    await expect((async () => (await extensions(request)).probe.whoami())()).rejects.toMatchObject({ type: "MissingCSRF" })
    // Not told the method, a request with a foreign Origin still counts as a change.
    await expect((async () => (await extensions()).probe.whoami())()).rejects.toMatchObject({ type: "MissingCSRF" })
    expect(probe.ran).toEqual([])
  })

  it("serve the extension's routes through the route handlers under the base path", async () => {
    const { handlers } = setup()
    const hello = await handlers.GET(new NextRequest(`${origin}/api/auth/probe/hello/next`))
    expect(await hello.json()).toEqual({ hello: "next" })
    expect((await handlers.GET(new NextRequest(`${origin}/api/auth/probe/me`))).status).toBe(401)
    const jar = await signInThroughHandlers(handlers)
    const me = await handlers.GET(new NextRequest(`${origin}/api/auth/probe/me`, { headers: { cookie: cookieHeader(jar) } }))
    expect(await me.json()).toEqual({ userId: "u1" })
  })
})

import { IncomingMessage, ServerResponse } from "node:http"
import { Socket } from "node:net"
import { beforeEach, describe, expect, it, vi } from "vitest"
import { NextRequest } from "next/server"
import NextAuth from "@portcullis/next"
import { InvalidRequest } from "@portcullis/core/errors"
import { nextRequestStore, origin, testConfig } from "./helpers.js"

/**
 * T32 for Next.js: `auth()` in all its forms and the server actions build URLs from the
 * `Host` and `X-Forwarded-*` headers Next hands over, so core's host check runs before any
 * URL is built. The proxy and wrapped handlers answer core's 400; server code gets a typed
 * `InvalidRequest`; the route handlers are core itself (it checks its own headers).
 */

vi.mock("next/headers", () => ({
  headers: async () => nextRequestStore.headers,
  cookies: async () => nextRequestStore.jar(),
}))

beforeEach(() => nextRequestStore.reset())

/** The attacker's headers: each one alone is enough to be refused. */
const hostile: [string, Record<string, string>][] = [
  ["Host with userinfo", { host: "a@evil.example" }],
  ["Host with a port above 65535", { host: "x:99999" }],
  ["Host with a path", { host: "evil.example/x" }],
  ["Host with a space", { host: "evil example" }],
  ["X-Forwarded-Host with a path", { "x-forwarded-host": "evil.example/x" }],
  ["X-Forwarded-Host with userinfo", { "x-forwarded-host": "a@evil.example" }],
  ["X-Forwarded-Proto javascript", { "x-forwarded-proto": "javascript" }],
]

async function expectRefused(response: Response) {
  expect(response.status).toBe(400)
  const text = await response.text()
  expect(JSON.parse(text)).toMatchObject({ error: "InvalidRequest" })
  expect(text).not.toMatch(/\bat .+:\d+:\d+\)?/)
  expect(response.headers.get("location")).toBeNull()
}

describe("Next.js: the proxy (middleware) answers core's 400 for malformed host headers", () => {
  it.each(hostile)("%s", async (_, headers) => {
    const authorized = vi.fn(() => true)
    const { auth } = NextAuth(testConfig({ callbacks: { authorized } }))
    await expectRefused(await auth(new NextRequest(`${origin}/dashboard`, { headers: { host: "app.test", ...headers } })))
    expect(authorized).not.toHaveBeenCalled()
  })

  it("a wrapped route handler never runs", async () => {
    const handler = vi.fn(() => new Response("secret"))
    const { auth } = NextAuth(testConfig())
    await expectRefused(await auth(handler)(new NextRequest(`${origin}/api/me`, { headers: { host: "a@evil.example" } }), {}))
    expect(handler).not.toHaveBeenCalled()
  })

  it("X-Forwarded-Proto `https, http` counts by its first value (the sign-in redirect keeps the request's origin)", async () => {
    const { auth } = NextAuth(testConfig({ callbacks: { authorized: ({ auth }) => !!auth } }))
    const response = await auth(new NextRequest(`${origin}/dashboard`, { headers: { host: "app.test", "x-forwarded-proto": "https, http" } }))
    expect(response.status).toBe(302)
    expect(new URL(response.headers.get("location")!).origin).toBe(origin)
  })
})

describe("Next.js: route handlers are core, which checks the forwarded headers itself", () => {
  it.each(hostile.filter(([name]) => name.startsWith("X-")))("%s", async (_, headers) => {
    const { handlers } = NextAuth(testConfig())
    await expectRefused(await handlers.GET(new NextRequest(`${origin}/api/auth/providers`, { headers })))
  })

  it("X-Forwarded-Proto `https, http` counts by its first value", async () => {
    const { handlers } = NextAuth(testConfig())
    const response = await handlers.GET(new NextRequest(`${origin}/api/auth/providers`, { headers: { "x-forwarded-proto": "https, http" } }))
    expect((await response.json()).credentials.signinUrl).toBe("https://app.test/api/auth/signin/credentials")
  })
})

describe("Next.js: server code gets a typed InvalidRequest, never a TypeError", () => {
  it.each(hostile)("auth() in a Server Component, %s", async (_, headers) => {
    nextRequestStore.reset(headers)
    const { auth } = NextAuth(testConfig())
    await expect(auth()).rejects.toBeInstanceOf(InvalidRequest)
  })

  it.each(hostile)("auth(req, res) in the Pages Router, %s", async (_, headers) => {
    const req = new IncomingMessage(new Socket())
    Object.assign(req.headers, { host: "app.test", ...headers })
    const { auth } = NextAuth(testConfig())
    await expect(auth(req, new ServerResponse(req))).rejects.toBeInstanceOf(InvalidRequest)
  })

  it.each(hostile)("the signIn, signOut and unstable_update server actions, %s", async (_, headers) => {
    nextRequestStore.reset(headers)
    const { signIn, signOut, unstable_update } = NextAuth(testConfig())
    await expect(signIn("credentials", { username: "ada", password: "lovelace", redirect: false })).rejects.toBeInstanceOf(InvalidRequest)
    await expect(signOut({ redirect: false })).rejects.toBeInstanceOf(InvalidRequest)
    await expect(unstable_update({ user: { name: "Eve" } })).rejects.toBeInstanceOf(InvalidRequest)
  })
})

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { NextRequest } from "next/server"
import NextAuth from "@portcullis/next"
import { hashPassword } from "@portcullis/core/password"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { getSession, signIn } from "../src/react.js"
import { cookiePairs, origin, secret } from "./helpers.js"

/**
 * `signIn("password", { email, password })` from @portcullis/next/react against the real
 * route handlers: the password provider is posted to like credentials (its callback), and
 * a refusal reads as one.
 */
const LIGHT = { memoryCost: 1024, timeCost: 1, parallelism: 1 }

async function browser() {
  const adapter = MemoryAdapter()
  const user = await adapter.createUser!({ id: "u1", email: "grace@example.test", emailVerified: new Date(), name: "Grace", image: null })
  await adapter.setUserPassword!(user.id, await hashPassword("a long and rather unguessable passphrase", LIGHT))
  // JWT sessions with a password provider need a registry (a reset ends the user's sessions).
  const { handlers } = NextAuth({ secret, trustHost: true, adapter, session: { strategy: "jwt", registry: new MemorySessionRegistry() }, providers: [Password({ hashing: LIGHT })] })
  const jar = new Map<string, string>()
  vi.stubGlobal("window", { location: { origin, href: `${origin}/shop`, reload: vi.fn() } })
  vi.stubGlobal(
    "BroadcastChannel",
    class {
      postMessage() {}
      addEventListener() {}
      removeEventListener() {}
      close() {}
    },
  )
  vi.stubGlobal("fetch", async (input: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers)
    headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "))
    if (init.method === "POST") headers.set("origin", origin)
    const request = new NextRequest(new URL(input, origin), { ...init, headers })
    const response = await (request.method === "POST" ? handlers.POST : handlers.GET)(request)
    for (const [name, value] of cookiePairs(response.headers.getSetCookie())) {
      if (value) jar.set(name, value)
      else jar.delete(name)
    }
    return response
  })
}

afterEach(() => vi.unstubAllGlobals())

describe("signIn with the password provider from the React client", () => {
  beforeEach(() => browser())

  it("refuses a wrong password with CredentialsSignin and no session", async () => {
    const result = await signIn("password", { email: "grace@example.test", password: "wrong", redirect: false })
    expect(result).toMatchObject({ error: "CredentialsSignin", ok: false })
    expect(await getSession()).toBeNull()
  })

  it("signs in with the right password", async () => {
    const result = await signIn("password", { email: "grace@example.test", password: "a long and rather unguessable passphrase", redirect: false })
    expect(result).toMatchObject({ ok: true })
    expect((await getSession())?.user?.email).toBe("grace@example.test")
  })
})

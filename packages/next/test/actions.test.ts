import { beforeEach, describe, expect, it, vi } from "vitest"
import { getURLFromRedirectError } from "next/dist/client/components/redirect"
import { isRedirectError } from "next/dist/client/components/redirect-error"
import NextAuth, { AuthError, CredentialsSignin } from "@portcullis/next"
import { InvalidCallbackUrl } from "@portcullis/core/errors"
import { cookieHeader, nextRequestStore, origin, signInThroughHandlers, testConfig } from "./helpers.js"

// next/headers reads a request store that only Next's server creates, so it is replaced by
// a recording one (see helpers.ts). next/navigation's redirect() is the real one: it throws
// Next's redirect error, which these tests read back with Next's own helpers.
vi.mock("next/headers", () => ({
  headers: async () => nextRequestStore.headers,
  cookies: async () => nextRequestStore.jar(),
}))

beforeEach(() => nextRequestStore.reset({ origin, referer: `${origin}/cart?step=2` }))

/** The URL a Server Action would redirect to: runs `fn` and catches Next's redirect error. */
async function redirectOf(fn: () => Promise<unknown>): Promise<string> {
  try {
    await fn()
  } catch (error) {
    if (isRedirectError(error)) return getURLFromRedirectError(error)
    throw error
  }
  throw new Error("expected a redirect")
}

const acme = {
  id: "acme",
  name: "Acme",
  type: "oauth" as const,
  authorization: "https://acme.test/authorize",
  token: "https://acme.test/token",
  userinfo: "https://acme.test/me",
  clientId: "client",
  clientSecret: "client-secret",
}

describe("signIn (server action)", () => {
  it("signs in with credentials, writes the session cookie through cookies(), and redirects to redirectTo", async () => {
    const { signIn, auth } = NextAuth(testConfig())
    const url = await redirectOf(() => signIn("credentials", { username: "ada", password: "lovelace", redirectTo: "/welcome" }))
    expect(url).toBe(`${origin}/welcome`)
    const cookie = nextRequestStore.cookies.get("authjs.session-token")!
    expect(cookie.options).toMatchObject({ httpOnly: true, sameSite: "lax", path: "/" })
    // Later reads in the same request (the page the action re-renders) see the new session.
    expect((await auth())?.user?.name).toBe("Ada")
  })

  it("takes a form: fields, redirectTo and redirect=false from FormData; Next's $ACTION fields are not sent", async () => {
    const authorize = vi.fn(({ username, password }: Record<string, unknown>) => (username === "ada" && password === "lovelace" ? { id: "u1", name: "Ada" } : null))
    const config = testConfig()
    const Credentials = (await import("@portcullis/core/providers/credentials")).default
    config.providers = [Credentials({ credentials: { username: {}, password: {} }, authorize })]
    const { signIn } = NextAuth(config)
    const form = new FormData()
    form.set("$ACTION_ID_abc", "")
    form.set("username", "ada")
    form.set("password", "lovelace")
    form.set("redirectTo", "/orders")
    form.set("redirect", "false")
    expect(await signIn("credentials", form)).toBe(`${origin}/orders`)
    const credentials = authorize.mock.calls[0]![0]
    expect(credentials).toMatchObject({ username: "ada", password: "lovelace" })
    expect(Object.keys(credentials).some((k) => k.startsWith("$ACTION"))).toBe(false)
  })

  it("returns to the calling page (Referer) when no redirectTo is given", async () => {
    const { signIn } = NextAuth(testConfig())
    expect(await signIn("credentials", { username: "ada", password: "lovelace", redirect: false })).toBe(`${origin}/cart?step=2`)
  })

  it("throws CredentialsSignin to the caller for a wrong password, and sets no session", async () => {
    const { signIn } = NextAuth(testConfig({ logger: { error: () => {} } }))
    const failure = signIn("credentials", { username: "ada", password: "nope" })
    await expect(failure).rejects.toBeInstanceOf(CredentialsSignin)
    await expect(failure).rejects.toBeInstanceOf(AuthError)
    expect(nextRequestStore.cookies.has("authjs.session-token")).toBe(false)
  })

  it("refuses a redirectTo that is not a path on this site", async () => {
    const { signIn } = NextAuth(testConfig())
    for (const redirectTo of ["https://evil.test/", "//evil.test/x", "/\\evil.test", `${origin}/absolute`]) {
      await expect(signIn("credentials", { username: "ada", password: "lovelace", redirectTo }), redirectTo).rejects.toBeInstanceOf(InvalidCallbackUrl)
    }
    expect(nextRequestStore.sets).toEqual([])
  })

  it("sends to the sign-in page without a provider, or with an unknown one", async () => {
    const { signIn } = NextAuth(testConfig())
    const expected = `${origin}/api/auth/signin?callbackUrl=${encodeURIComponent("/cart?step=2")}`
    expect(await redirectOf(() => signIn())).toBe(expected)
    expect(await signIn("nope", { redirect: false })).toBe(expected)
  })

  it("starts an OAuth sign-in: provider URL with authorizationParams, check cookies written", async () => {
    const { signIn } = NextAuth(testConfig({ providers: [acme] }))
    const url = new URL(await signIn("acme", { redirect: false, redirectTo: "/after" }, { login_hint: "ada@example.test" }))
    expect(url.origin + url.pathname).toBe("https://acme.test/authorize")
    expect(url.searchParams.get("login_hint")).toBe("ada@example.test")
    expect(url.searchParams.get("redirect_uri")).toBe(`${origin}/api/auth/callback/acme`)
    expect(url.searchParams.get("code_challenge")).toBeTruthy()
    expect([...nextRequestStore.cookies.keys()]).toEqual(expect.arrayContaining(["authjs.pkce.code_verifier", "authjs.state"]))
  })
})

describe("signOut (server action)", () => {
  it("ends the session, deletes the cookie and redirects to redirectTo", async () => {
    const { handlers, signOut, auth } = NextAuth(testConfig())
    nextRequestStore.reset({ origin, cookie: cookieHeader(await signInThroughHandlers(handlers)) })
    expect(await auth()).not.toBeNull()
    expect(await redirectOf(() => signOut({ redirectTo: "/bye" }))).toBe(`${origin}/bye`)
    expect(nextRequestStore.sets.find((c) => c.name === "authjs.session-token")?.options).toMatchObject({ maxAge: 0 })
    expect(await auth()).toBeNull()
  })

  it("with redirect: false returns the URL (the calling page by default)", async () => {
    const { signOut } = NextAuth(testConfig())
    expect(await signOut({ redirect: false })).toBe(`${origin}/cart?step=2`)
  })

  it("ends a database session: the row is deleted, not only the cookie", async () => {
    const { MemoryAdapter } = await import("@portcullis/memory-adapter")
    const adapter = MemoryAdapter()
    const { handlers, signOut } = NextAuth(testConfig({ adapter }))
    const jar = await signInThroughHandlers(handlers)
    const token = jar.get("authjs.session-token")!
    expect(await adapter.getSessionAndUser!(token)).not.toBeNull()
    nextRequestStore.reset({ origin, cookie: cookieHeader(jar) })
    await signOut({ redirect: false })
    expect(await adapter.getSessionAndUser!(token)).toBeNull()
  })
})

describe("unstable_update", () => {
  it("updates a JWT session through the jwt callback and writes the new cookie", async () => {
    const { handlers, unstable_update, auth } = NextAuth(
      testConfig({
        callbacks: {
          jwt: ({ token, trigger, session }) => (trigger === "update" && typeof session?.user?.name === "string" ? { ...token, name: session.user.name } : token),
        },
      }),
    )
    nextRequestStore.reset({ origin, cookie: cookieHeader(await signInThroughHandlers(handlers)) })
    const before = nextRequestStore.cookies.get("authjs.session-token")!.value
    const session = await unstable_update({ user: { name: "Augusta" } })
    expect(session?.user?.name).toBe("Augusta")
    expect(nextRequestStore.cookies.get("authjs.session-token")!.value).not.toBe(before)
    expect((await auth())?.user?.name).toBe("Augusta")
  })

  it("updates a database session: the session callback gets newSession", async () => {
    const { MemoryAdapter } = await import("@portcullis/memory-adapter")
    const adapter = MemoryAdapter()
    const { handlers, unstable_update } = NextAuth(
      testConfig({
        adapter,
        callbacks: {
          async session({ session, user, trigger, newSession }) {
            if (trigger === "update" && typeof newSession?.user?.name === "string") {
              await adapter.updateUser!({ id: user!.id, name: newSession.user.name })
              return { ...session, user: { ...session.user, name: newSession.user.name } }
            }
            return session
          },
        },
      }),
    )
    const jar = await signInThroughHandlers(handlers)
    nextRequestStore.reset({ origin, cookie: cookieHeader(jar) })
    const session = await unstable_update({ user: { name: "Augusta" } })
    expect(session?.user?.name).toBe("Augusta")
    const stored = await adapter.getSessionAndUser!(jar.get("authjs.session-token")!)
    expect(stored?.user.name).toBe("Augusta")
  })

  it("returns null without a session", async () => {
    const { unstable_update } = NextAuth(testConfig())
    expect(await unstable_update({ user: { name: "x" } })).toBeNull()
  })
})

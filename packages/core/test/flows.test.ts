import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { ada, Browser, credentialsConfig, direct, type Transport } from "./helpers.js"
import { httpServer } from "./http-server.js"

/**
 * The core flows, run twice: against `Auth()` as a fetch handler, and through a real
 * HTTP server (node:http, `./http-server.ts`) on a loopback port (spec §4.1, §4.3, §5.5, §7.1).
 */
const events: string[] = []
const config: AuthConfig = credentialsConfig({
  callbacks: {
    jwt({ token, user, trigger, session }) {
      if (trigger === "signIn") token.role = user.id === "user-ada" ? "admin" : "user"
      if (trigger === "update" && typeof session?.nickname === "string") token.nickname = session.nickname
      return token
    },
    session({ session, token }) {
      return { ...session, user: { ...session.user, id: token.sub }, role: token.role, nickname: token.nickname } as any
    },
  },
  events: {
    signIn: ({ user }) => void events.push(`signIn:${user.id}`),
    signOut: (m) => void events.push(`signOut:${"token" in m ? m.token?.sub : "db"}`),
  },
})

const matrix: [string, () => Promise<{ transport: Transport; origin: string; close?: () => Promise<void> }>][] = [
  ["Auth()", async () => ({ transport: direct(config), origin: "http://localhost:3000" })],
  ["a real HTTP server", () => httpServer(config)],
]

describe.each(matrix)("credentials sign-in with JWT sessions, through %s", (_name, start) => {
  let transport: Transport
  let origin: string
  let close: (() => Promise<void>) | undefined
  beforeAll(async () => {
    ;({ transport, origin, close } = await start())
  })
  afterAll(() => close?.())

  it("GET /csrf returns a 64-hex token and sets the double-submit cookie", async () => {
    const browser = new Browser(transport, origin)
    const response = await browser.request("/auth/csrf")
    expect(response.status).toBe(200)
    expect(response.headers.get("cache-control")).toContain("no-store")
    const { csrfToken } = await response.json()
    expect(csrfToken).toMatch(/^[0-9a-f]{64}$/)
    const cookie = browser.jar.get("authjs.csrf-token")!
    expect(cookie.value.split("|")[0]).toBe(csrfToken)
    // A second call reuses the token the cookie vouches for.
    expect(await browser.csrfToken()).toBe(csrfToken)
  })

  it("signs in, shows the session, updates it, and signs out", async () => {
    const browser = new Browser(transport, origin)
    expect(await browser.session()).toBeNull()

    const signIn = await browser.signIn(ada, "/dashboard")
    expect(signIn.status).toBe(302)
    expect(signIn.headers.get("location")).toBe(`${origin}/dashboard`)
    expect(browser.sessionCookie()).toBeTruthy()

    const session = await browser.session()
    expect(session.user).toEqual({ id: "user-ada", name: "Ada Lovelace", email: "ada@example.com", image: "https://example.com/ada.png" })
    expect(session.role).toBe("admin")
    expect(new Date(session.expires).getTime()).toBeGreaterThan(Date.now() + 29 * 24 * 3600 * 1000)

    const csrfToken = await browser.csrfToken()
    const update = await browser.request("/auth/session", { json: { csrfToken, data: { nickname: "Countess" } } })
    expect(update.status).toBe(200)
    expect((await update.json()).nickname).toBe("Countess")
    expect((await browser.session()).nickname).toBe("Countess")

    const signOut = await browser.signOut()
    expect(signOut.status).toBe(302)
    expect(browser.sessionCookie()).toBeUndefined()
    expect(await browser.session()).toBeNull()
    expect(events).toContain("signIn:user-ada")
    expect(events).toContain("signOut:user-ada")
  })

  it("refuses a wrong password and an unknown user with the same answer", async () => {
    const wrongPassword = await new Browser(transport, origin).signIn({ username: "ada", password: "nope" })
    const unknownUser = await new Browser(transport, origin).signIn({ username: "bob", password: "nope" })
    for (const response of [wrongPassword, unknownUser]) {
      expect(response.status).toBe(302)
      expect(response.headers.get("location")).toBe(`${origin}/auth/signin?error=CredentialsSignin&code=credentials`)
      expect(response.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(false)
    }
  })

  it("rejects sign-in without a CSRF token, or with another browser's token", async () => {
    const browser = new Browser(transport, origin)
    const none = await browser.request("/auth/callback/credentials", { form: { ...ada } })
    expect(none.headers.get("location")).toContain("error=MissingCSRF")
    const other = await new Browser(transport, origin).csrfToken()
    await browser.csrfToken()
    const foreign = await browser.request("/auth/callback/credentials", { form: { ...ada, csrfToken: other } })
    expect(foreign.headers.get("location")).toContain("error=MissingCSRF")
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("rejects a form posted from another origin even with a valid token", async () => {
    const browser = new Browser(transport, origin)
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/callback/credentials", { form: { ...ada, csrfToken }, headers: { origin: "https://evil.example" } })
    expect(response.headers.get("location")).toContain("error=MissingCSRF")
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("keeps the session when sign-out is attempted without CSRF, or by GET", async () => {
    const browser = new Browser(transport, origin)
    await browser.signIn()
    await browser.request("/auth/signout", { form: {} })
    const page = await browser.request("/auth/signout")
    expect(page.status).toBe(200)
    expect(await page.text()).toContain("csrfToken")
    expect((await browser.session())?.user?.name).toBe("Ada Lovelace")
  })

  it("POST /session without CSRF answers 400 null and changes nothing", async () => {
    const browser = new Browser(transport, origin)
    await browser.signIn()
    const response = await browser.request("/auth/session", { json: { data: { nickname: "Mallory" } } })
    expect(response.status).toBe(400)
    expect(await response.json()).toBeNull()
    expect((await browser.session()).nickname).toBeUndefined()
  })

  it("GET /providers lists the providers with absolute URLs", async () => {
    const response = await new Browser(transport, origin).request("/auth/providers")
    expect(await response.json()).toEqual({
      credentials: {
        id: "credentials",
        name: "Credentials",
        type: "credentials",
        signinUrl: `${origin}/auth/signin/credentials`,
        callbackUrl: `${origin}/auth/callback/credentials`,
      },
    })
  })

  it("with X-Auth-Return-Redirect, answers 200 {url} instead of redirecting", async () => {
    const browser = new Browser(transport, origin)
    const csrfToken = await browser.csrfToken()
    const response = await browser.request("/auth/callback/credentials", { form: { ...ada, csrfToken }, headers: { "x-auth-return-redirect": "1" } })
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ url: origin })
    expect(browser.sessionCookie()).toBeTruthy()
  })
})

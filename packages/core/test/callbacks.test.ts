import { describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import { AuthError, CredentialsSignin } from "@portcullis/core/errors"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, ada, captureLogger, credentialsConfig, direct } from "./helpers.js"

/** Callbacks (spec §4.4), events (§6) and errors raised through them (§7). */
describe("the signIn callback", () => {
  const attempt = async (signIn: NonNullable<AuthConfig["callbacks"]>["signIn"]) => {
    const { lines, logger } = captureLogger()
    const browser = new Browser(direct(credentialsConfig({ callbacks: { signIn }, logger })))
    const response = await browser.signIn()
    return { response, browser, lines }
  }

  it("receives the user, the account and the submitted credentials", async () => {
    const signIn = vi.fn(() => true)
    await attempt(signIn)
    expect(signIn).toHaveBeenCalledWith(
      expect.objectContaining({
        user: expect.objectContaining({ id: "user-ada", email: "ada@example.com" }),
        account: { providerAccountId: "user-ada", type: "credentials", provider: "credentials" },
        credentials: expect.objectContaining({ username: "ada" }),
      }),
    )
  })

  it("false stops sign-in with AccessDenied on the error page", async () => {
    const { response, browser } = await attempt(() => false)
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=AccessDenied")
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("a thrown error becomes AccessDenied; its message is logged, not shown", async () => {
    const { response, lines } = await attempt(() => {
      throw new Error("account suspended: unpaid invoice #4411")
    })
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=AccessDenied")
    expect(lines.join("\n")).toContain("account suspended")
    expect(response.headers.get("location")).not.toContain("invoice")
  })

  it("a string redirects there (through the redirect callback) without a session", async () => {
    const { response, browser } = await attempt(() => "/pending-approval")
    expect(response.headers.get("location")).toBe("http://localhost:3000/pending-approval")
    expect(browser.sessionCookie()).toBeUndefined()
    const offsite = await attempt(() => "https://evil.example/")
    expect(offsite.response.headers.get("location")).toBe("http://localhost:3000")
  })
})

describe("the jwt and session callbacks", () => {
  it("jwt gets trigger signIn with user and account; the session callback chooses what the client sees", async () => {
    const jwt = vi.fn(({ token }) => ({ ...token, internal: "never-to-client", plan: "pro" }))
    const browser = new Browser(direct(credentialsConfig({ callbacks: { jwt, session: ({ session, token }) => ({ ...session, plan: token.plan }) as any } })))
    await browser.signIn()
    expect(jwt).toHaveBeenCalledWith(expect.objectContaining({ trigger: "signIn", user: expect.objectContaining({ id: "user-ada" }), account: expect.objectContaining({ provider: "credentials" }) }))
    const session = await browser.session()
    expect(session.plan).toBe("pro")
    expect(JSON.stringify(session)).not.toContain("never-to-client")
  })

  it("by default the client sees only name, email and image of the token", async () => {
    const browser = new Browser(direct(credentialsConfig({ callbacks: { jwt: ({ token }) => ({ ...token, role: "admin" }) } })))
    await browser.signIn()
    const session = await browser.session()
    expect(Object.keys(session).sort()).toEqual(["expires", "user"])
    expect(Object.keys(session.user).sort()).toEqual(["email", "image", "name"])
  })

  it("jwt returning null ends the session", async () => {
    let revoked = false
    const browser = new Browser(direct(credentialsConfig({ callbacks: { jwt: ({ token }) => (revoked ? null : token) } })))
    await browser.signIn()
    expect(await browser.session()).not.toBeNull()
    revoked = true
    expect(await browser.session()).toBeNull()
    expect(browser.sessionCookie()).toBeUndefined()
  })

  it("update passes the client's data with trigger update; the callback must validate it", async () => {
    const jwt = vi.fn(({ token, trigger, session }) => {
      if (trigger === "update" && typeof session?.theme === "string" && ["dark", "light"].includes(session.theme)) token.theme = session.theme
      return token
    })
    const browser = new Browser(direct(credentialsConfig({ callbacks: { jwt, session: ({ session, token }) => ({ ...session, theme: token.theme }) as any } })))
    await browser.signIn()
    let csrfToken = await browser.csrfToken()
    await browser.request("/auth/session", { json: { csrfToken, data: { theme: "dark" } } })
    expect((await browser.session()).theme).toBe("dark")
    csrfToken = await browser.csrfToken()
    await browser.request("/auth/session", { json: { csrfToken, data: { theme: "<script>", sub: "someone-else", __proto__: { admin: true } } } })
    const session = await browser.session()
    expect(session.theme).toBe("dark")
    expect(session.admin).toBeUndefined()
  })

  it("a session younger than updateAge is not re-issued; an older one is", async () => {
    const browser = new Browser(direct(credentialsConfig({ session: { updateAge: 3600 } })))
    await browser.signIn()
    const first = await browser.request("/auth/session")
    expect(first.headers.getSetCookie()).toEqual([])
    vi.useFakeTimers({ toFake: ["Date"] })
    try {
      vi.setSystemTime(Date.now() + 3601_000)
      const later = await browser.request("/auth/session")
      expect(later.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true)
    } finally {
      vi.useRealTimers()
    }
  })
})

describe("the JWT replay window after sign-out (checklist T41)", () => {
  it("a copied JWT session cookie keeps working until it expires: sign-out cannot revoke it", async () => {
    // This is the documented trade-off of stateless sessions (docs/security.md, T41): the
    // cookie is deleted from the browser, but a copy taken before stays valid until `exp`.
    // Database sessions (or a jwt callback that checks a denylist) close this window.
    const browser = new Browser(direct(credentialsConfig()))
    await browser.signIn()
    const copied = browser.cookieHeader()
    await browser.signOut()
    expect(await browser.session()).toBeNull()
    const replay = new Browser(direct(credentialsConfig()))
    const response = await replay.request("/auth/session", { headers: { cookie: copied } })
    expect((await response.json())?.user?.name).toBe("Ada Lovelace")
  })

  it("a jwt callback with a denylist closes it", async () => {
    const revoked = new Set<string>()
    const config = credentialsConfig({
      callbacks: { jwt: ({ token }) => (token.jti && revoked.has(token.jti) ? null : token) },
      events: { signOut: (m) => void ("token" in m && m.token?.jti && revoked.add(m.token.jti)) },
    })
    const browser = new Browser(direct(config))
    await browser.signIn()
    const copied = browser.cookieHeader()
    await browser.signOut()
    const replay = new Browser(direct(config))
    const response = await replay.request("/auth/session", { headers: { cookie: copied } })
    expect(await response.json()).toBeNull()
  })
})

describe("events (spec §6)", () => {
  it("signIn, session and signOut fire with their messages; a throwing handler is logged and ignored", async () => {
    const seen: string[] = []
    const { lines, logger } = captureLogger()
    const browser = new Browser(
      direct(
        credentialsConfig({
          logger,
          events: {
            signIn: ({ user, account }) => void seen.push(`signIn ${user.id} ${account?.provider}`),
            session: ({ session }) => {
              seen.push(`session ${session.user?.email}`)
              throw new Error("audit log is down")
            },
            signOut: (m) => void seen.push(`signOut ${"token" in m ? m.token?.email : ""}`),
          },
        }),
      ),
    )
    await browser.signIn()
    expect((await browser.session()).user.name).toBe("Ada Lovelace")
    await browser.signOut()
    expect(seen).toEqual(["signIn user-ada credentials", "session ada@example.com", "signOut ada@example.com"])
    expect(lines.join("\n")).toContain("EventError")
  })
})

describe("credentials errors (spec §7.1)", () => {
  class InvalidCode extends CredentialsSignin {
    override code = "invalid_code"
  }

  it("a CredentialsSignin subclass sets the code in the URL", async () => {
    const config = credentialsConfig({
      providers: [
        Credentials({
          credentials: { code: { label: "Code" } },
          authorize: () => {
            throw new InvalidCode()
          },
        }),
      ],
    })
    const response = await new Browser(direct(config)).signIn({ code: "123" })
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/signin?error=CredentialsSignin&code=invalid_code")
  })

  it("any other error in authorize is a Configuration error, logged in full", async () => {
    const { lines, logger } = captureLogger()
    const config = credentialsConfig({
      logger,
      providers: [
        Credentials({
          authorize: () => {
            throw new TypeError("db.users is undefined")
          },
        }),
      ],
    })
    const response = await new Browser(direct(config)).signIn({})
    expect(response.headers.get("location")).toBe("http://localhost:3000/auth/error?error=Configuration")
    expect(lines.join("\n")).toContain("db.users is undefined")
  })

  it("authorize gets every submitted field and a readable request", async () => {
    const authorize = vi.fn(async (_c: Record<string, unknown>, request: Request) => {
      expect(await request.json()).toMatchObject({ username: "ada" })
      return { id: "7", name: "Seven" }
    })
    const browser = new Browser(direct(credentialsConfig({ providers: [Credentials({ authorize })] })))
    await browser.signIn(ada)
    expect(authorize.mock.calls[0]![0]).toMatchObject({ username: "ada", password: ada.password })
    expect((await browser.session()).user.name).toBe("Seven")
  })

  it("AuthError carries type, kind, name and cause", () => {
    const cause = new Error("root")
    const error = new CredentialsSignin("nope", cause)
    expect(error).toBeInstanceOf(AuthError)
    expect(error).toMatchObject({ type: "CredentialsSignin", kind: "signIn", name: "CredentialsSignin", code: "credentials" })
    expect(error.cause?.err).toBe(cause)
  })
})

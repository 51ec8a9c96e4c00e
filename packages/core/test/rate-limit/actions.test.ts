/**
 * Every way in is limited (issue 19 part 1): email sign-in per address and per recipient,
 * passkey options and callback, OAuth start and the session update, each answering the
 * way its clients read (a 429 for scripts, the sign-in page for form posts).
 */
import { describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { RateLimited } from "@portcullis/core/errors"
import { serverSignIn } from "@portcullis/core/integration"
import Credentials from "@portcullis/core/providers/credentials"
import Passkey from "@portcullis/core/providers/passkey"
import type { OAuthConfig } from "@portcullis/core/providers/oauth"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import type { RateLimitedEvent } from "@portcullis/core/rate-limit"
import { ada, Browser, SECRET } from "../helpers.js"

const quiet = { error: () => {}, warn: () => {}, debug: () => {} }

function app(extra: Partial<AuthConfig>) {
  const sent: string[] = []
  const events: RateLimitedEvent[] = []
  const email = {
    id: "email",
    type: "email",
    name: "Email",
    from: "auth@example.com",
    maxAge: 600,
    async sendVerificationRequest({ identifier }: { identifier: string }) {
      sent.push(identifier)
    },
  } as unknown as EmailConfig
  const oauth = { id: "op", name: "OP", type: "oauth", authorization: "https://op.example/authorize", token: "https://op.example/token", userinfo: "https://op.example/userinfo", clientId: "c", clientSecret: "s" } as OAuthConfig<any>
  const auth = createAuth({
    secret: SECRET,
    trustHost: true,
    trustedOrigins: ["http://localhost:3000"],
    adapter: MemoryAdapter(),
    session: { strategy: "jwt" },
    experimental: { enableWebAuthn: true },
    providers: [
      email,
      oauth,
      Passkey,
      Credentials({ credentials: { username: {}, password: { type: "password" } }, authorize: async ({ username, password }) => (username === ada.username && password === ada.password ? { id: "ada" } : null) }),
    ],
    logger: quiet,
    events: { rateLimited: (e) => void events.push(e) },
    ...extra,
  })
  const browser = (address = "198.51.100.7") => new Browser((request) => auth.handle(request, { clientAddress: address }), "http://localhost:3000")
  return { sent, events, browser, auth }
}

const errorOf = (response: Response) => {
  const location = response.headers.get("location")
  return location ? new URL(location).searchParams.get("error") : null
}

describe("email sign-in", () => {
  it("limits the emails one address may have sent, and names the limit", async () => {
    const { browser, sent, events } = app({ rateLimit: { perAddress: { email: { max: 2, window: 3600 } } } })
    const b = browser()
    const results = []
    for (let i = 0; i < 3; i++) {
      const response = await b.request("/auth/signin/email", { form: { email: `person${i}@example.com`, csrfToken: await b.csrfToken() } })
      results.push(errorOf(response))
    }
    expect(results).toEqual([null, null, "RateLimited"])
    expect(sent).toEqual(["person0@example.com", "person1@example.com"])
    expect(events.map((e) => [e.action, e.limit])).toEqual([["email", "address"]])
  })

  it("limits the emails one recipient gets from any number of addresses, counted normalised, known or not", async () => {
    const { browser, sent } = app({ rateLimit: { perIdentifier: { email: { max: 2, window: 3600 } } } })
    const results = []
    for (const [i, address] of ["Victim@Example.com", "victim@example.com", "VICTIM@example.com"].entries()) {
      const b = browser(`203.0.113.${i}`)
      results.push(errorOf(await b.request("/auth/signin/email", { form: { email: address, csrfToken: await b.csrfToken() } })))
    }
    expect(results).toEqual([null, null, "RateLimited"])
    expect(sent).toHaveLength(2)
  })

  it("answers a fetch client with 429 and Retry-After", async () => {
    const { browser } = app({ rateLimit: { perAddress: { email: { max: 1, window: 3600 } } } })
    const b = browser()
    const post = async () =>
      b.request("/auth/signin/email", { json: { email: "someone@example.com", csrfToken: await b.csrfToken() }, headers: { "x-auth-return-redirect": "1" } })
    expect((await post()).status).toBe(200)
    const refused = await post()
    expect(refused.status).toBe(429)
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3500)
  })
})

describe("OAuth start", () => {
  it("limits sign-in starts per address, and sends the form post back to the sign-in page with Retry-After", async () => {
    const { browser } = app({ rateLimit: { perAddress: { oauth: { max: 2, window: 900 } } } })
    const b = browser()
    const starts = []
    for (let i = 0; i < 3; i++) starts.push(await b.request("/auth/signin/op", { form: { csrfToken: await b.csrfToken() } }))
    expect(new URL(starts[0]!.headers.get("location")!).origin).toBe("https://op.example")
    expect(new URL(starts[1]!.headers.get("location")!).origin).toBe("https://op.example")
    expect(starts[2]!.status).toBe(302)
    expect(new URL(starts[2]!.headers.get("location")!).pathname).toBe("/auth/signin")
    expect(errorOf(starts[2]!)).toBe("RateLimited")
    expect(starts[2]!.headers.get("retry-after")).not.toBeNull()
  })

  it("keeps addresses apart", async () => {
    const { browser } = app({ rateLimit: { perAddress: { oauth: { max: 1, window: 900 } } } })
    for (const address of ["198.51.100.1", "198.51.100.2"]) {
      const b = browser(address)
      const r = await b.request("/auth/signin/op", { form: { csrfToken: await b.csrfToken() } })
      expect(new URL(r.headers.get("location")!).origin).toBe("https://op.example")
    }
  })
})

describe("passkeys", () => {
  it("limits the options endpoint per address with a JSON 429", async () => {
    const { browser } = app({ rateLimit: { perAddress: { webauthnOptions: { max: 2, window: 900 } } } })
    const b = browser()
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await b.request("/auth/webauthn-options/passkey?email=new@example.com")).status)
    expect(statuses).toEqual([200, 200, 429])
    const refused = await b.request("/auth/webauthn-options/passkey?email=new@example.com")
    expect(await refused.json()).toMatchObject({ error: "RateLimited" })
    expect(refused.headers.get("retry-after")).not.toBeNull()
  })

  it("limits the callback per address before any verification", async () => {
    const { browser } = app({ rateLimit: { perAddress: { webauthn: { max: 2, window: 900 } } } })
    const b = browser()
    const errors = []
    for (let i = 0; i < 3; i++) {
      const r = await b.request("/auth/callback/passkey", { form: { action: "authenticate", data: "{}", csrfToken: await b.csrfToken() } })
      errors.push(errorOf(r))
    }
    expect(errors).toEqual(["WebAuthnVerificationError", "WebAuthnVerificationError", "RateLimited"])
  })
})

describe("the session update", () => {
  it("limits POST /session per address with a JSON 429, and leaves GET /session alone", async () => {
    const { browser } = app({ rateLimit: { perAddress: { sessionUpdate: { max: 2, window: 900 } } } })
    const b = browser()
    await b.request("/auth/callback/credentials", { form: { ...ada, csrfToken: await b.csrfToken() } })
    const statuses = []
    for (let i = 0; i < 3; i++) statuses.push((await b.request("/auth/session", { json: { csrfToken: await b.csrfToken(), data: { n: i } } })).status)
    expect(statuses).toEqual([200, 200, 429])
    const session = await b.request("/auth/session")
    expect(session.status).toBe(200)
    expect(((await session.json()) as { user?: unknown }).user).toBeDefined()
  })
})

describe("turning limits off", () => {
  it("rateLimit: false limits nothing", async () => {
    const { browser, events } = app({ rateLimit: false })
    const b = browser()
    for (let i = 0; i < 12; i++) {
      const r = await b.request("/auth/callback/credentials", { form: { username: "ada", password: "wrong", csrfToken: await b.csrfToken() } })
      expect(errorOf(r)).toBe("CredentialsSignin")
    }
    expect(events).toEqual([])
  })

  it("a rule set to false turns that one limit off", async () => {
    const { browser } = app({ rateLimit: { perIdentifier: { credentials: false } } })
    const b = browser()
    for (let i = 0; i < 8; i++) {
      const r = await b.request("/auth/callback/credentials", { form: { username: "ada", password: "wrong", csrfToken: await b.csrfToken() } })
      expect(errorOf(r)).toBe("CredentialsSignin")
    }
  })
})

describe("server-side sign-ins", () => {
  it("handleInternal (what Next's signIn uses) throws RateLimited with retryAfter", async () => {
    const { auth } = app({ rateLimit: { perIdentifier: { credentials: { max: 1, window: 900 } } } })
    const post = () =>
      auth.handleInternal(
        new Request("http://localhost:3000/auth/callback/credentials", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ username: "ada", password: "wrong" }) }),
        { skipCSRF: true },
      )
    await expect(post()).rejects.toMatchObject({ type: "CredentialsSignin" })
    const refused = await post().catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(RateLimited)
    expect((refused as RateLimited).retryAfter).toBeGreaterThan(0)
  })

  it("serverSignIn (the form actions of SvelteKit, SolidStart, Qwik) lands on the sign-in page with error=RateLimited", async () => {
    const { auth } = app({ rateLimit: { perIdentifier: { credentials: { max: 1, window: 900 } } } })
    const signIn = () =>
      serverSignIn({ origin: "http://localhost:3000", provider: "credentials", fields: { username: "ada", password: "wrong" }, redirectTo: undefined, authorizationParams: {}, headers: new Headers(), skipCSRF: true }, auth, () => {})
    await signIn()
    const target = new URL(await signIn())
    expect(target.pathname).toBe("/auth/signin")
    expect(target.searchParams.get("error")).toBe("RateLimited")
  })
})

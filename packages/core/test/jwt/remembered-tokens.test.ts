import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { encode } from "@portcullis/core/jwt"
import { Browser, credentialsConfig, SECRET } from "../helpers.js"

/**
 * A verified session cookie is remembered (`VerifiedTokenCache`). Without app code that
 * sees the token, the remembered token is used as it is; with a `jwt` or `session`
 * callback, each check gets its own copy. Either way no check can change what the next
 * check reads.
 */
function browserFor(config: AuthConfig) {
  return new Browser((request) => Auth(request, config))
}

describe("remembered session tokens", () => {
  it("without callbacks: many checks of one cookie answer the same session", async () => {
    const browser = browserFor(credentialsConfig())
    await browser.signIn()
    const first = await browser.session()
    expect(first.user).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" })
    for (let i = 0; i < 5; i++) expect(await browser.session()).toEqual(first)
  })

  it("a session callback that mutates its token and session cannot change the next check", async () => {
    let calls = 0
    const config = credentialsConfig({
      callbacks: {
        session({ session, token }) {
          calls++
          const seen = token.name
          token.name = `changed ${calls}`
          ;(token as Record<string, unknown>).extra = calls
          return { ...session, user: { ...session.user, name: String(seen) } }
        },
      },
    })
    const browser = browserFor(config)
    await browser.signIn()
    for (let i = 0; i < 4; i++) expect((await browser.session()).user.name).toBe("Ada Lovelace")
    expect(calls).toBe(4)
  })

  it("a jwt callback that scribbles on the token it was given cannot change the next check", async () => {
    const seen: unknown[] = []
    const config = credentialsConfig({
      callbacks: {
        jwt({ token, trigger }) {
          if (trigger) return token // sign-in: the token as built
          seen.push(token.email)
          const unchanged = { ...token }
          token.email = "mallory@example.com"
          return unchanged
        },
      },
    })
    const browser = browserFor(config)
    await browser.signIn()
    const cookie = browser.sessionCookie()
    for (let i = 0; i < 4; i++) expect((await browser.session()).user.email).toBe("ada@example.com")
    expect(seen).toEqual(Array(4).fill("ada@example.com"))
    // Nothing changed, so the cookie was never re-issued: the checks were answered from memory.
    expect(browser.sessionCookie()).toBe(cookie)
  })
})

describe("remembered session tokens: 50 different users checked at once", () => {
  const COOKIE = "authjs.session-token"
  const check = (config: AuthConfig, cookie: string) =>
    Auth(new Request("http://localhost:3000/auth/session", { headers: { cookie: `${COOKIE}=${cookie}` } }), config).then((r) => r.json())

  /** 50 users' cookies, minted as the session check's own codec writes them. */
  async function cookies(): Promise<string[]> {
    return Promise.all(Array.from({ length: 50 }, (_, i) =>
      encode({ token: { sub: `user-${i}`, name: `User ${i}`, email: `user${i}@example.com` }, secret: SECRET, salt: COOKIE })))
  }

  for (const [label, extra] of [
    ["without callbacks (the remembered token itself is shared)", {}],
    ["with a session callback that mutates its token", { callbacks: { session: ({ session, token }: any) => ((token.name = "mutated"), { ...session, sub: token.sub }) } }],
  ] as const) {
    it(`${label}: cold, then remembered, every answer is its own user's; forged cookies in the same burst read as signed out`, async () => {
      const config = credentialsConfig(extra as Partial<AuthConfig>)
      const issued = await cookies()
      // A forged twin of each cookie: the first character of its tag changed (the last one
      // would only touch base64url's unused low bits, which decode to the same tag).
      const forged = issued.map((c) => {
        const parts = c.split(".")
        parts[4] = (parts[4]!.startsWith("A") ? "B" : "A") + parts[4]!.slice(1)
        return parts.join(".")
      })
      for (const round of ["cold", "remembered"]) {
        const answers = await Promise.all([...issued, ...forged].map((c) => check(config, c)))
        answers.slice(0, 50).forEach((session, i) => expect(session?.user?.email, `${round} user ${i}`).toBe(`user${i}@example.com`))
        answers.slice(50).forEach((session, i) => expect(session, `${round} forged ${i}`).toBeNull())
      }
    })
  }
})

/**
 * Attack on which field the credentials lockout counts (docs/rate-limiting.md: "the
 * credentials provider's first declared field that is not a password; else a submitted
 * `email` or `username`"). An app with a custom sign-in form often declares no fields and
 * reads `credentials.username` in `authorize()`. The lockout then counted `email` first —
 * a field the app never reads — so a decoy `email` that changes on every attempt gave every
 * guess at ada's password a fresh counter.
 */
import { describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, SECRET } from "../../helpers.js"

const secret = "ada's secret passphrase"

function app(credentials?: Record<string, object>) {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    rateLimit: {},
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [
      Credentials({
        ...(credentials && { credentials }),
        authorize: async (c) => (c.username === "ada" && c.password === secret ? { id: "user-ada" } : c.email === "bob@example.com" && c.password === secret ? { id: "user-bob" } : null),
      }),
    ],
  }
  const auth = createAuth(config)
  return new Browser((request) => auth.handle(request, { clientAddress: "198.51.100.7" }))
}

async function post(b: Browser, fields: Record<string, string>) {
  const csrfToken = await b.csrfToken()
  return (await b.request("/auth/callback/credentials", { json: { ...fields, csrfToken }, headers: { "x-auth-return-redirect": "1" } })).status
}

describe("no declared fields: a decoy email does not shed the username's lockout", () => {
  for (const [what, declared] of [["no credentials option", undefined], ["an empty credentials option", {}]] as const) {
    it(`${what}: ten guesses with a new decoy email each, then ada's right password is refused`, async () => {
      const b = app(declared)
      for (let i = 0; i < 10; i++) await post(b, { username: "ada", email: `decoy${i}@example.com`, password: `guess-${i}` })
      expect(await post(b, { username: "ada", email: "decoy-last@example.com", password: secret })).toBe(429)
    })
  }

  it("the attacker's own right password with the victim's name in the other field does not clear the victim's count", async () => {
    const b = app()
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 4; i++) await post(b, { username: "ada", password: `guess-${round}-${i}` })
      // Bob's own account (the app reads email for him), with ada's name as a decoy username:
      // a success here must not wipe ada's count (it counts against ada too).
      await post(b, { email: "bob@example.com", username: "ada", password: secret })
    }
    expect(await post(b, { username: "ada", password: secret })).toBe(429)
  })

  it("what held: an app reading email is locked by email, with or without a username alongside", async () => {
    const b = app()
    for (let i = 0; i < 5; i++) await post(b, { email: "bob@example.com", username: `decoy${i}`, password: `guess-${i}` })
    expect(await post(b, { email: "bob@example.com", password: secret })).toBe(429)
  })

  it("what held: the owner still signs in after a few mistakes, and other users are not locked", async () => {
    const b = app()
    for (let i = 0; i < 3; i++) await post(b, { username: "ada", password: `guess-${i}` })
    expect(await post(b, { username: "ada", password: secret })).toBe(200)
    for (let i = 0; i < 6; i++) await post(b, { username: "mallory", password: `guess-${i}` })
    expect(await post(b, { email: "bob@example.com", password: secret })).toBe(200)
  })
})

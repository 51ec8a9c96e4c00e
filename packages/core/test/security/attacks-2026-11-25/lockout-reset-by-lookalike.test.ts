/**
 * Attack on the credentials lockout's reset (docs/rate-limiting.md: "A successful sign-in
 * clears the identifier's attempts and strikes"): the counter is per *folded* identifier, so
 * on an app whose usernames are case- or accent-sensitive (PostgreSQL's default collation)
 * the attacker registers `ADA` (or `ádá`) — a different account that folds to the victim's
 * `ada` — and signs in to it successfully between every four guesses at ada's password.
 * Each success clears ada's counter: unlimited guesses, no lockout ever.
 *
 * Fixed: a success gives back only its own attempt (`hit(key, window, -1)`) and leaves the
 * failures and strikes, so an attacker's successes cannot erase the victim's failures (and
 * the look-alike shares the lock), while an owner's successes never count against them.
 */
import { describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { Browser, SECRET } from "../../helpers.js"

const accounts: Record<string, string> = { ada: "ada's secret passphrase", ADA: "attacker's own password", "ádá": "attacker's own password" }

function app() {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    rateLimit: {},
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    providers: [
      Credentials({
        credentials: { username: {}, password: { type: "password" } },
        // Case- and accent-sensitive, as a PostgreSQL `WHERE username = $1` is.
        authorize: async ({ username, password }) => (typeof username === "string" && accounts[username] === password ? { id: `user-${username}`, name: username } : null),
      }),
    ],
  }
  const auth = createAuth(config)
  return () => new Browser((request) => auth.handle(request, { clientAddress: "198.51.100.7" }))
}

async function post(browser: Browser, username: string, password: string) {
  const csrfToken = await browser.csrfToken()
  const response = await browser.request("/auth/callback/credentials", { json: { username, password, csrfToken }, headers: { "x-auth-return-redirect": "1" } })
  return response.status
}

describe("an attacker's own look-alike account", () => {
  for (const lookalike of ["ADA", "ádá"]) {
    it(`signing in as ${lookalike} between guesses does not clear ada's failed attempts`, async () => {
      const b = app()()
      let checked = 0
      for (let round = 0; round < 3; round++) {
        for (let i = 0; i < 4; i++) if ((await post(b, "ada", `guess-${round}-${i}`)) !== 429) checked++
        await post(b, lookalike, accounts[lookalike]!)
      }
      // Twelve guesses sent; at most the five of one window were checked, and ada is locked.
      expect(checked).toBeLessThanOrEqual(5)
      expect(await post(b, "ada", accounts.ada!)).toBe(429)
    })
  }

  it("what held: without the look-alike's successes, twelve guesses lock ada", async () => {
    const b = app()()
    const statuses = []
    for (let i = 0; i < 6; i++) statuses.push(await post(b, "ada", `guess-${i}`))
    expect(statuses.slice(5)).toEqual([429])
    expect(await post(b, "ada", accounts.ada!)).toBe(429)
  })
})

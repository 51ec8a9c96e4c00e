/**
 * Signing in again in a browser that already holds a session (a re-login, switching
 * accounts, a shared computer): database sessions delete the session the browser arrived
 * with, so a copy of the old cookie stops working and the list shows no ghost. Do JWT
 * sessions with a registry do the same?
 */
import { describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import { listSessions } from "@portcullis/core/integration"
import Credentials from "@portcullis/core/providers/credentials"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../../helpers.js"

const ORIGIN = "http://localhost:3000"
const users: Record<string, { id: string; name: string; email: string }> = { ada: { id: "user-ada", name: "Ada", email: "ada@example.com" }, bob: { id: "user-bob", name: "Bob", email: "bob@example.com" } }

const strategies: [string, () => AuthConfig["session"] & object, Partial<AuthConfig>][] = [
  ["JWT sessions with a registry", () => ({ strategy: "jwt", registry: new MemorySessionRegistry(), revocationCheckInterval: 0 }), {}],
  ["database sessions", () => ({ strategy: "database", metadata: true }), { adapter: MemoryAdapter() }],
]

describe.each(strategies)("%s: a new sign-in over an old session", (_name, session, extra) => {
  function setup() {
    const auth = createAuth({
      secret: SECRET,
      trustHost: true,
      session: session(),
      providers: [Credentials({ credentials: { username: {} }, authorize: async ({ username }) => users[username as string] ?? null })],
      ...extra,
    })
    return { auth, browser: new Browser((request) => auth.handle(request), ORIGIN) }
  }
  const sessionOf = async (b: Browser, cookie: string) => (await b.transport(new Request(`${ORIGIN}/auth/session`, { headers: { cookie } }))).json()

  it("the old cookie stops working and is no longer listed", async () => {
    const { auth, browser } = setup()
    await browser.signIn({ username: "ada" })
    const old = browser.cookieHeader()
    await browser.signIn({ username: "ada" })
    expect(browser.cookieHeader()).not.toBe(old)
    expect(await sessionOf(browser, old)).toBeNull()
    expect((await sessionOf(browser, browser.cookieHeader()))?.user?.name).toBe("Ada")
    const listed = await listSessions({ origin: ORIGIN, headers: new Headers({ cookie: browser.cookieHeader() }) }, auth)
    expect(listed.map((s) => s.current)).toEqual([true])
  })

  it("switching accounts ends the previous user's session in this browser, and only it", async () => {
    const { browser } = setup()
    await browser.signIn({ username: "ada" })
    const adasOld = browser.cookieHeader()
    await browser.signIn({ username: "bob" })
    expect(await sessionOf(browser, adasOld)).toBeNull()
    expect((await sessionOf(browser, browser.cookieHeader()))?.user?.name).toBe("Bob")
  })
})

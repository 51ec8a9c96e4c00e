/**
 * The `signOut` event's message, as in Auth.js (`lib/actions/signout.ts`): with database
 * sessions `{ session }`, the row the adapter's `deleteSession` removed; with JWT sessions
 * `{ token }`, what the decoder returned — fired only when decoding did not fail, so an
 * unreadable cookie fires nothing. No session cookie: no event.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, credentialsConfig, direct, SECRET } from "../helpers.js"
import { openLink, requestLink, startSmtp, type TestSmtp } from "../email/support.js"

describe("signOut event with database sessions", () => {
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
  })
  afterAll(() => smtp.close())

  it("gets { session }: the row the adapter deleted", async () => {
    const adapter = MemoryAdapter()
    const signOut = vi.fn()
    const config: AuthConfig = {
      secret: SECRET,
      trustHost: true,
      adapter,
      session: { strategy: "database" },
      events: { signOut },
      providers: [Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" })],
    }
    const browser = new Browser(direct(config))
    await requestLink(browser, "leaving@example.com")
    await openLink(browser, smtp.linkFor("leaving@example.com"))
    const sessionToken = browser.sessionCookie()!
    const row = await adapter.getSessionAndUser!(sessionToken)
    expect(row).not.toBeNull()

    const response = await browser.signOut()
    expect(response.status).toBe(302)
    expect(signOut).toHaveBeenCalledTimes(1)
    expect(signOut.mock.calls[0]![0]).toEqual({ session: row!.session })
    expect(Object.keys(signOut.mock.calls[0]![0])).toEqual(["session"])
    expect(await adapter.getSessionAndUser!(sessionToken)).toBeNull()
  })

  it("is not fired when there is no session cookie", async () => {
    const signOut = vi.fn()
    const config: AuthConfig = { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), session: { strategy: "database" }, events: { signOut }, providers: [Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" })] }
    expect((await new Browser(direct(config)).signOut()).status).toBe(302)
    expect(signOut).not.toHaveBeenCalled()
  })
})

describe("signOut event with JWT sessions", () => {
  it("gets { token }: the decoded session token", async () => {
    const signOut = vi.fn()
    const browser = new Browser(direct(credentialsConfig({ events: { signOut } })))
    await browser.signIn()
    await browser.signOut()
    expect(signOut).toHaveBeenCalledTimes(1)
    const message = signOut.mock.calls[0]![0]
    expect(Object.keys(message)).toEqual(["token"])
    expect(message.token).toMatchObject({ sub: "user-ada", name: "Ada Lovelace", email: "ada@example.com", exp: expect.any(Number), iat: expect.any(Number), jti: expect.any(String) })
  })

  it("is not fired for a session cookie that does not open (Auth.js's decoder throws there), and the cookie is cleared", async () => {
    const signOut = vi.fn()
    const browser = new Browser(direct(credentialsConfig({ events: { signOut } })))
    await browser.signIn()
    const [header, iv, ciphertext, , tag] = browser.sessionCookie()!.split(".")
    for (const value of ["not-a-token", `${header}..${iv}.${ciphertext}.${tag}x`]) {
      browser.jar.set("authjs.session-token", { value, attributes: {} })
      const response = await browser.signOut()
      expect(response.status).toBe(302)
      expect(browser.jar.has("authjs.session-token")).toBe(false)
    }
    expect(signOut).not.toHaveBeenCalled()
  })

  it("gets { token: null } when the app's own decoder answers null, as Auth.js passes on what decode returns", async () => {
    const signOut = vi.fn()
    const browser = new Browser(direct(credentialsConfig({ events: { signOut }, jwt: { encode: async () => "opaque", decode: async () => null } })))
    browser.jar.set("authjs.session-token", { value: "opaque", attributes: {} })
    await browser.signOut()
    expect(signOut).toHaveBeenCalledWith({ token: null })
    expect(browser.jar.has("authjs.session-token")).toBe(false)
  })

  it("is not fired when there is no session cookie", async () => {
    const signOut = vi.fn()
    await new Browser(direct(credentialsConfig({ events: { signOut } }))).signOut()
    expect(signOut).not.toHaveBeenCalled()
  })
})

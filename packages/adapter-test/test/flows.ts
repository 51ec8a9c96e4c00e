/**
 * Portcullis's flows through `Auth()` for any adapter: an email magic-link sign-in ending in
 * a database session, a session read, a sign-out that deletes the row, a returning address,
 * and credentials with database sessions. Used for Auth.js's adapter packages
 * (authjs-adapters.test.ts) and for adapters of ours.
 */
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import { Browser, credentialsConfig, direct } from "../../core/test/helpers.js"
import { emailConfig, requestLink } from "../../core/test/email/support.js"

/** An adapter under test: how to open it, and how to look at its storage directly. */
export interface Backend {
  adapter: Adapter
  /** The stored session row/record for a token, or null when there is none. */
  rawSession(sessionToken: string): Promise<unknown>
  close(): Promise<void>
}

/**
 * Portcullis's flows through `Auth()` on a backend. Each test uses fresh addresses, so
 * one backend serves them all.
 */
export function flows(name: string, open: () => Promise<Backend>) {
  describe(`${name} through Auth()`, () => {
    let backend: Backend
    beforeAll(async () => {
      backend = await open()
    })
    afterAll(() => backend?.close())

    it("email magic link: signs in with a database session, reads it, signs out deleting the row", async () => {
      const links: string[] = []
      const config = emailConfig(backend.adapter, "smtp://127.0.0.1:9", {}, {
        sendVerificationRequest: ({ url }) => void links.push(url),
      })
      const browser = new Browser(direct(config))
      const email = `grace.${randomBytes(4).toString("hex")}@example.com`

      const requested = await requestLink(browser, email)
      expect(requested.headers.get("location")).toMatch(/\/auth\/verify-request/)
      expect(links).toHaveLength(1)

      const link = new URL(links[0]!)
      const callback = await browser.request(link.pathname + link.search)
      expect(callback.headers.get("location")).toBe("http://localhost:3000/")
      const token = browser.sessionCookie()
      expect(token, "a session cookie").toBeTruthy()
      // Database sessions: the cookie is the row's random token, not an encrypted JWT.
      expect(token!.split(".")).toHaveLength(1)
      expect(await backend.rawSession(token!)).not.toBeNull()

      const session = await browser.session()
      expect(session.user.email).toBe(email)
      expect(new Date(session.expires).getTime()).toBeGreaterThan(Date.now())
      const stored = await backend.adapter.getSessionAndUser!(token!)
      expect(stored?.user.email).toBe(email)
      expect(stored?.user.emailVerified).not.toBeNull()

      // The link is single-use.
      const again = await new Browser(direct(config)).request(link.pathname + link.search)
      expect(again.headers.get("location")).toMatch(/error=Verification/)

      const signedOut = await browser.signOut()
      expect(signedOut.status).toBe(302)
      expect(browser.sessionCookie()).toBeUndefined()
      expect(await backend.rawSession(token!)).toBeNull()
      expect(await backend.adapter.getSessionAndUser!(token!)).toBeNull()
      expect(await browser.session()).toBeNull()
    })

    it("a returning user signs in by email to the same user", async () => {
      const links: string[] = []
      const config = emailConfig(backend.adapter, "smtp://127.0.0.1:9", {}, {
        sendVerificationRequest: ({ url }) => void links.push(url),
      })
      const email = `ada.${randomBytes(4).toString("hex")}@example.com`
      const ids: unknown[] = []
      for (let i = 0; i < 2; i++) {
        const browser = new Browser(direct(config))
        await requestLink(browser, email)
        const link = new URL(links.at(-1)!)
        await browser.request(link.pathname + link.search)
        ids.push((await backend.adapter.getSessionAndUser!(browser.sessionCookie()!))?.user.id)
      }
      expect(ids[0]).toBeDefined()
      expect(ids[1]).toEqual(ids[0])
    })

    it("credentials with database sessions: signs in, reads the session, signs out deleting the row", async () => {
      const config = credentialsConfig({ adapter: backend.adapter })
      const browser = new Browser(direct(config))
      const response = await browser.signIn()
      expect(new URL(response.headers.get("location")!).pathname).toBe("/")
      const token = browser.sessionCookie()
      expect(token).toBeTruthy()
      expect(token!.split(".")).toHaveLength(1)
      expect(await backend.rawSession(token!)).not.toBeNull()

      const session = await browser.session()
      expect(session.user).toMatchObject({ name: "Ada Lovelace", email: "ada@example.com" })

      // A second sign-in finds the user created by the first rather than creating another.
      const second = new Browser(direct(config))
      await second.signIn()
      const [first, next] = await Promise.all([token!, second.sessionCookie()!].map((t) => backend.adapter.getSessionAndUser!(t)))
      expect(next?.user.id).toEqual(first?.user.id)

      await browser.signOut()
      expect(browser.sessionCookie()).toBeUndefined()
      expect(await backend.rawSession(token!)).toBeNull()
      expect(await browser.session()).toBeNull()
      // The other sign-in is untouched.
      expect((await second.session())?.user.email).toBe("ada@example.com")
    })
  })
}

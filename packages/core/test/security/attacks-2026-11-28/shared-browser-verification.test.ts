/**
 * Issue 28, item 1, re-attempted where the fix trusts a browser: the registrant cookie
 * (`lib/password-flows/registrant.ts`) keeps the unverified user and its password when the
 * link is confirmed in the browser that signed up. On a shared computer — a family laptop,
 * a library or hotel kiosk, an office machine — that browser is not one person's.
 *
 * Mallory signs up with Victoria's address on the computer they share and walks away. Within
 * the day (the cookie lives as long as the link, 24 h) she reads her mail there and presses
 * "Confirm". That fix could not tell her from him: his user and his password were kept, and
 * the account verified in her name opened with his password.
 *
 * Now the confirm page asks for the password chosen at sign-up: only typing it keeps the
 * user. She leaves the field empty (she chose none), so the confirmation is a first
 * verification under T67 and his password goes with the replaced user. The registrant
 * cookie is gone.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Password from "@portcullis/core/providers/password"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../../helpers.js"
import { startSmtp, type TestSmtp } from "../../email/support.js"
import { confirmVerification, LIGHT, mailQueue, passwordSignIn, postStep } from "../../password/support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

const VICTIM = "victoria@example.com"
const MALLORYS_PASSWORD = "mallory's own long passphrase"

function app() {
  const adapter = MemoryAdapter()
  const mail = mailQueue()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter,
    session: { strategy: "jwt", registry: new MemorySessionRegistry() },
    providers: [Password({ hashing: LIGHT, emailVerification: "required", waitUntil: mail.waitUntil, mailer: Nodemailer({ server: smtp.url, from: "auth@example.com" }) })],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  }
  const auth = createAuth(config)
  let n = 0
  const browser = () => new Browser(mail.settling((request) => auth.handle(request, { clientAddress: `198.51.100.${++n}` })), "http://localhost:3000")
  return { adapter, browser }
}

describe("Mallory signs up with Victoria's address on the computer they share", () => {
  // Was a hole (Low): verify() kept the user and its password whenever the registrant cookie
  // matched — proof of the browser, not of the person. The confirmation now asks for that
  // password (the registrant knows it; the owner of the address does not, and gets T67's
  // replacement).
  it("her confirming there does not leave his password on her verified account", async () => {
    const { adapter, browser } = app()
    const shared = browser()
    await postStep(shared, "signup", { email: VICTIM, password: MALLORYS_PASSWORD })

    // Later that day Victoria opens her mail on the same computer and confirms.
    const confirmed = await confirmVerification(shared, smtp.linkFor(VICTIM))
    expect(confirmed.path).toBe("/auth/password/verified")
    expect((await adapter.getUserByEmail!(VICTIM))?.emailVerified).toBeInstanceOf(Date)

    // From his own phone, Mallory signs in to the account verified in her name.
    expect((await passwordSignIn(browser(), { email: VICTIM, password: MALLORYS_PASSWORD })).error).not.toBeNull()
  })
})

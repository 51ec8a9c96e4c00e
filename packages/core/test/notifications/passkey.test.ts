/**
 * Issue 28, security notifications: a passkey added to a signed-in account mails the owner
 * a notice (the way in an attacker with a stolen session would leave behind); signing up
 * with a passkey — a new account, its first sign-in — sends none, not even a new-device one.
 */
import { describe, expect, it } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Passkey from "@portcullis/core/providers/passkey"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { direct, SECRET } from "../helpers.js"
import { SoftCredential } from "../webauthn/soft-authenticator.js"
import { authenticators, ORIGIN, PasskeyBrowser } from "../webauthn/support.js"
import { captureMailer, expectCleanNotice, recordEvents } from "./support.js"

const ADA = "ada@example.com"

function setup() {
  const adapter = MemoryAdapter()
  const capture = captureMailer()
  const recorded = recordEvents()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    providers: [Passkey],
    notifications: { mailer: capture.mailer, newDevice: true },
    events: recorded.events,
    logger: { warn: () => {} },
  }
  return { adapter, capture, recorded, browser: () => new PasskeyBrowser(direct(config), ORIGIN) }
}

describe("a passkey added to a signed-in account", () => {
  it("mails the owner one passkeyAdded notice and fires the event; the sign-up before it sent nothing", async () => {
    const { adapter, capture, recorded, browser } = setup()
    const b = browser()
    const first = new SoftCredential(ORIGIN, "localhost")
    expect((await b.register(first, { email: ADA })).status).toBe(302)
    // A new account: no passkeyAdded for its first passkey, no newDevice for its first sign-in.
    expect(capture.sent).toEqual([])
    expect(recorded.notices).toEqual([])

    const second = new SoftCredential(ORIGIN, "localhost")
    expect((await b.register(second)).status).toBe(302)
    expect(await authenticators(adapter, ADA)).toHaveLength(2)

    const notices = capture.noticesTo(ADA)
    expect(notices).toHaveLength(1)
    expectCleanNotice(notices[0], "passkeyAdded", [second.id.toString("base64url"), second.id.toString("base64")])
    expect(notices[0]!.rendered.subject).toBe("A passkey was added to your account at localhost:3000")
    // No password provider here: the button leads to the sign-in page.
    expect(notices[0]!.url).toBe("http://localhost:3000/auth/signin")
    const userId = (await adapter.getUserByEmail!(ADA))!.id
    expect(recorded.notices).toEqual([expect.objectContaining({ kind: "passkeyAdded", userId, email: ADA, emailed: true })])
  })
})

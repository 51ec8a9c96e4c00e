/**
 * Step-up by a magic link (docs/step-up.md, "How a session steps up"): a user without a
 * password re-authenticates by asking for a new sign-in link and confirming it in the same
 * browser — the new session is marked; a copy of the old cookie, taken before, is not. Real
 * SMTP, the link's confirm page (scanner-proof default), database and JWT sessions.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import type { AuthConfig } from "@portcullis/core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { requireStepUp, stepUpStatus } from "@portcullis/core/integration"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { Browser, direct, SECRET } from "../helpers.js"
import { openLink, requestLink, startSmtp, type TestSmtp } from "../email/support.js"

const ORIGIN = "http://localhost:3000"
const GRACE = "grace@example.com"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())
afterEach(() => vi.useRealTimers())

/** Moves the clock (Date only). */
function later(ms: number) {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
  vi.setSystemTime(Date.now() + ms)
}

function requestOf(browser: Browser) {
  return { origin: ORIGIN, headers: new Headers({ cookie: browser.cookieHeader(), origin: ORIGIN }), skipCSRF: true }
}

/** Asks for a link and confirms it on its page (the default: a GET shows the page, its POST signs in). */
async function signInByLink(browser: Browser) {
  await requestLink(browser, GRACE)
  const response = await openLink(browser, smtp.linkFor(GRACE))
  expect(response.status).toBe(302)
}

describe.each([
  ["database sessions", { strategy: "database" as const }],
  ["JWT sessions with a registry", { strategy: "jwt" as const, registry: new MemorySessionRegistry() }],
])("a magic link as the step-up (%s)", (_name, session) => {
  function config(): AuthConfig {
    return { secret: SECRET, trustHost: true, adapter: MemoryAdapter(), session, providers: [Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" })] }
  }

  it("marks the session the confirmed link creates; the stale cookie's copy stays refused", async () => {
    const auth = config()
    const browser = new Browser(direct(auth), ORIGIN)
    await signInByLink(browser)
    expect((await stepUpStatus(requestOf(browser), auth)).fresh).toBe(true)

    later(11 * 60_000)
    const thief = new Browser(direct(auth), ORIGIN)
    for (const [name, cookie] of browser.jar) thief.jar.set(name, { ...cookie })
    await expect(requireStepUp(requestOf(browser), auth)).rejects.toMatchObject({ type: "StepUpRequired" })

    // "Sign in again" from the re-authentication page: a new link, confirmed in this browser.
    await signInByLink(browser)
    await expect(requireStepUp(requestOf(browser), auth)).resolves.toBeDefined()
    // The copy taken before is another session (or none): it has no mark.
    await expect(requireStepUp(requestOf(thief), auth)).rejects.toMatchObject({ type: expect.stringMatching(/^(StepUpRequired|NotSignedIn)$/) })
  })
})

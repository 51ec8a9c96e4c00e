/**
 * Issue 28, security notifications: the `notifications` option (checked once, a wrong value
 * is a configuration error on every request), which sender is used, the `emailChanged`
 * notice the email-change flow (issue 32) will send to the old address, and the browser
 * names a notice shows.
 */
import { describe, expect, it } from "vitest"
import { Auth, type AuthConfig } from "@portcullis/core"
import { runtimeFor } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { notify } from "../../src/lib/notify/index.js"
import { describeAgent } from "../../src/lib/notify/device.js"
import { credentialsConfig } from "../helpers.js"
import { captureMailer, expectCleanNotice, recordEvents } from "./support.js"

async function configError(config: AuthConfig): Promise<string | undefined> {
  const response = await Auth(new Request("http://localhost:3000/auth/session"), { ...config, logger: { error: () => {} } })
  if (response.status !== 500) return undefined
  return runtimeFor(config).config.error?.message
}

describe("the notifications option", () => {
  it.each([
    ["not an object", "yes", /notifications must be an object/],
    ["newDevice not a boolean", { newDevice: "on" }, /notifications.newDevice must be a boolean/],
    ["email neither boolean nor object", { email: "all" }, /notifications.email must be a boolean or an object/],
    ["an unknown kind", { email: { passwordChange: false } }, /notifications.email.passwordChange is not a notice kind/],
    ["a kind set to a non-boolean", { email: { passwordChanged: "no" } }, /notifications.email.passwordChanged must be a boolean/],
    ["a mailer that cannot send", { mailer: { id: "x", type: "email" } }, /notifications.mailer must be an email provider/],
    ["email: true without any sender", { email: true }, /notifications.email is true but there is no sender/],
  ])("refuses %s as a configuration error", async (_, option, message) => {
    const config = credentialsConfig({ notifications: option as never })
    expect(await configError(config)).toMatch(message)
  })

  it("is fine left out, and without a sender mails nothing while the event still fires", async () => {
    const recorded = recordEvents()
    const config = credentialsConfig({ adapter: MemoryAdapter(), events: recorded.events, trustedOrigins: ["https://app.example.com"] })
    expect(await configError(config)).toBeUndefined()
    await notify(runtimeFor(config).config, { id: "user-ada", email: "ada@example.com" }, "passwordChanged")
    expect(recorded.notices).toEqual([expect.objectContaining({ kind: "passwordChanged", emailed: false })])
  })

  it("uses the first email provider as the sender when there is no password mailer", async () => {
    const capture = captureMailer()
    const config = credentialsConfig({ adapter: MemoryAdapter(), trustedOrigins: ["https://app.example.com"] })
    config.providers.push(capture.mailer)
    await notify(runtimeFor(config).config, { id: "user-ada", email: "ada@example.com" }, "passkeyAdded")
    expect(capture.noticesTo("ada@example.com").map((m) => m.kind)).toEqual(["passkeyAdded"])
  })

  it("mails nothing with email: false", async () => {
    const capture = captureMailer()
    const recorded = recordEvents()
    const config = credentialsConfig({ trustedOrigins: ["https://app.example.com"], events: recorded.events, notifications: { email: false, mailer: capture.mailer } })
    await notify(runtimeFor(config).config, { id: "user-ada", email: "ada@example.com" }, "twoFactorDisabled")
    expect(capture.sent).toEqual([])
    expect(recorded.notices).toEqual([expect.objectContaining({ kind: "twoFactorDisabled", emailed: false })])
  })
})

describe("the emailChanged notice (for the email-change flow)", () => {
  it("goes to the address it is given — the old one — in every language's words", async () => {
    const capture = captureMailer()
    const recorded = recordEvents()
    const config = credentialsConfig({ trustedOrigins: ["https://app.example.com"], events: recorded.events, notifications: { mailer: capture.mailer }, i18n: { defaultLocale: "ja" } })
    await notify(runtimeFor(config).config, { id: "user-ada", email: "old@example.com" }, "emailChanged")
    const [notice] = capture.noticesTo("old@example.com")
    expectCleanNotice(notice, "emailChanged")
    expect(notice!.rendered.subject).toBe("app.example.com のアカウントのメールアドレスが変更されました")
    expect(recorded.notices).toEqual([expect.objectContaining({ kind: "emailChanged", email: "old@example.com", emailed: true })])
  })
})

describe("the browser a notice names", () => {
  it.each([
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0", "Edge", "Windows"],
    ["Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome", "macOS"],
    ["Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1", "Safari", "iOS"],
    ["Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0", "Firefox", "Linux"],
    ["Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36", "Chrome", "ChromeOS"],
    ["curl/8.5.0", null, null],
    ["<script>alert(1)</script> {host}", null, null],
  ])("%s → %s on %s", (agent, browser, os) => {
    expect(describeAgent(agent)).toEqual({ browser, os })
  })
})

/**
 * The password provider when its peers fail: a store that is down or hangs costs the
 * request (503), never the process and never a half-written password; a mail server that
 * refuses the message leaves no usable link behind and answers known and unknown addresses
 * alike.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Adapter } from "@portcullis/core/adapters"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { captureLogger } from "../helpers.js"
import { startSmtp, type TestSmtp } from "../email/support.js"
import { grace, LIGHT, passwordApp, passwordSignIn, postStep, seedUser, STRONG } from "./support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp({ refuseRecipient: (address) => address.startsWith("bounce") })
})
afterAll(() => smtp.close())

/** The memory adapter with switches that make chosen methods fail or never answer. */
function faulty(base: Adapter = MemoryAdapter()) {
  const failing = new Set<string>()
  const hanging = new Set<string>()
  const adapter: Adapter = {}
  for (const [name, fn] of Object.entries(base)) {
    ;(adapter as Record<string, unknown>)[name] = (...args: unknown[]) => {
      if (failing.has(name)) return Promise.reject(new Error(`${name}: connection refused`))
      if (hanging.has(name)) return new Promise(() => {})
      return (fn as (...a: unknown[]) => unknown).apply(base, args)
    }
  }
  return { adapter, base, failing, hanging }
}

function app(adapter: Adapter, extra = {}) {
  const mailer = Nodemailer({ server: smtp.url, from: "Portcullis Tests <auth@example.com>" })
  return passwordApp(adapter, { provider: { mailer, hashing: LIGHT }, extra })
}

describe("a store that is down", () => {
  it("answers sign-in with ServiceUnavailable (503 for fetch clients), not CredentialsSignin and not a crash", async () => {
    const store = faulty()
    await seedUser(store.base, grace)
    store.failing.add("getUserByEmail")
    const b = app(store.adapter).browser()
    const form = await passwordSignIn(b, grace)
    expect(form.error).toBe("ServiceUnavailable")
    const json = await passwordSignIn(b, grace, { json: true })
    expect(json.status).toBe(503)
    expect(json.response.headers.get("retry-after")).toBe("5")
    store.failing.clear()
    expect((await passwordSignIn(b, grace)).error).toBeNull()
  })

  it("answers a sign-up whose password cannot be stored with ServiceUnavailable and sends no link", async () => {
    const store = faulty()
    store.failing.add("setUserPassword")
    const sent = smtp.messages.length
    const result = await postStep(app(store.adapter).browser(), "signup", { email: "down@example.com", password: STRONG })
    expect(result.error).toBe("ServiceUnavailable")
    expect(smtp.messages.length).toBe(sent)
    expect(await store.base.getUserPassword!((await store.base.getUserByEmail!("down@example.com"))!.id)).toBeNull()
  })

  it("answers a reset whose token store hangs within adapterTimeout, and the password is unchanged", async () => {
    const store = faulty()
    await seedUser(store.base, grace)
    const { browser } = app(store.adapter, { adapterTimeout: 200 })
    await postStep(browser(), "forgot", { email: grace.email })
    const token = new URL(smtp.linkFor(grace.email)).searchParams.get("token")!
    store.hanging.add("useVerificationToken")
    const result = await postStep(browser(), "reset", { token, email: grace.email, password: "a completely new passphrase here" })
    expect(result.error).toBe("ServiceUnavailable")
    store.hanging.clear()
    expect((await passwordSignIn(browser(), grace)).error).toBeNull()
  })
})

describe("a mail server that refuses the message", () => {
  it("answers a new and an existing address alike (the send runs after the answer), logs the failure and leaves no usable link", async () => {
    const base = MemoryAdapter()
    const issued: { identifier: string; token: string }[] = []
    const adapter: Adapter = { ...base, createVerificationToken: (vt) => (issued.push(vt), base.createVerificationToken!(vt)) }
    await seedUser(adapter, { email: "bounce-known@example.com", password: "the owner's own passphrase" })
    const log = captureLogger()
    const { browser } = app(adapter, { logger: log.logger })
    const known = await postStep(browser(), "signup", { email: "bounce-known@example.com", password: STRONG })
    const fresh = await postStep(browser(), "signup", { email: "bounce-new@example.com", password: STRONG })
    expect(known.path).toBe("/auth/password/sent")
    expect(fresh.location).toBe(known.location)
    expect(fresh.status).toBe(known.status)
    const forgot = await postStep(browser(), "forgot", { email: "bounce-known@example.com" })
    expect(forgot.path).toBe("/auth/password/sent")
    // The browser's transport waited for the sends (test support): each failed, was logged
    // scrubbed of its link, and deleted its token.
    expect(log.lines.filter((line) => line.startsWith("EmailSignInError: Sending the"))).toHaveLength(3)
    expect(log.lines.join("\n")).not.toMatch(/token=|\/password\/(verify|reset)\?/)
    expect(issued.length).toBe(3)
    for (const { identifier, token } of issued) expect(await base.useVerificationToken!({ identifier, token })).toBeNull()
  })
})

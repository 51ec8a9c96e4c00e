/**
 * Issue 28, item 5 (Low): forgot-password timing enumerated accounts — 163 ms for a known
 * address, 11 ms for an unknown one, with an SMTP sender: the mail was awaited, and only
 * known addresses get one. Sign-up has the same shape (a new address gets a verification
 * mail, a known one "you already have an account").
 *
 * Now the password emails are sent after the response (`mailInBackground`,
 * `lib/password-flows/mail.ts`), handed to the provider's `waitUntil` when set. The proof is
 * not a stopwatch: the sender here does not finish until the test lets it, and every answer
 * arrives while it is still waiting. The medians are compared too, against the sender's delay.
 */
import { describe, expect, it, vi } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import type { EmailConfig } from "@portcullis/core/providers/email"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, captureLogger, SECRET } from "../../helpers.js"
import { LIGHT, postStep, seedUser, STRONG } from "../../password/support.js"

/** A sender that holds every send until `release()`; `started` counts the sends begun. */
function heldSender() {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const state = { started: 0, finished: 0 }
  const mailer: EmailConfig = {
    id: "held",
    type: "email",
    name: "Held",
    sendVerificationRequest: async () => {
      state.started++
      await gate
      state.finished++
    },
  }
  return { mailer, state, release }
}

function app(adapter: Adapter, mailer: EmailConfig, extra: Partial<AuthConfig> = {}, waitUntil?: (p: Promise<unknown>) => void) {
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter,
    providers: [Password({ hashing: LIGHT, mailer, policy: { minScore: 0 }, ...(waitUntil && { waitUntil }) })],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
    ...extra,
  }
  const auth = createAuth(config)
  let n = 0
  return () => new Browser((request) => auth.handle(request, { clientAddress: `203.0.113.${++n}` }), "http://localhost:3000")
}

describe("forgot-password does not wait for the mailer", () => {
  it("a known address is answered while its mail is still being sent, exactly as an unknown one", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, { email: "known@example.com", password: "the owner's own passphrase" })
    const held = heldSender()
    const handed: Promise<unknown>[] = []
    const browser = app(adapter, held.mailer, {}, (p) => void handed.push(p))
    const known = await postStep(browser(), "forgot", { email: "known@example.com" })
    const unknown = await postStep(browser(), "forgot", { email: "nobody@example.com" })
    // Both answered while no send has finished; the known address's send begins in the
    // background (after the response, so on a loaded machine possibly after both) and is held.
    expect(held.state.finished).toBe(0)
    await vi.waitFor(() => expect(held.state.started).toBe(1))
    expect(held.state).toEqual({ started: 1, finished: 0 })
    expect(known.location).toBe(unknown.location)
    expect(known.status).toBe(unknown.status)
    expect(await known.response.text()).toBe(await unknown.response.text())
    // The send went to waitUntil, and finishes once the mailer does.
    expect(handed).toHaveLength(1)
    held.release()
    await Promise.all(handed)
    expect(held.state.finished).toBe(1)
  })

  it("with a sender that takes 300 ms, the median answer for a known address is not a send slower than for an unknown one", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, { email: "timed@example.com", password: "the owner's own passphrase" })
    const DELAY = 300
    const slow: EmailConfig = { id: "slow", type: "email", name: "Slow", sendVerificationRequest: () => new Promise((r) => setTimeout(r, DELAY)) }
    const browser = app(adapter, slow)
    const time = async (email: string) => {
      const b = browser()
      const csrfToken = await b.csrfToken()
      const started = performance.now()
      await b.request("/auth/password/forgot", { form: { email, csrfToken } })
      return performance.now() - started
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
    const known: number[] = []
    const unknown: number[] = []
    for (let i = 0; i < 7; i++) {
      known.push(await time("timed@example.com"))
      unknown.push(await time(`nobody${i}@example.com`))
    }
    // Before the fix the known median was the unknown one plus the whole delay.
    expect(median(known) - median(unknown)).toBeLessThan(DELAY / 2)
  })
})

describe("the provider's waitUntil", () => {
  it("throwing (called outside its platform's request scope) changes nothing in the answer, and the mail still goes", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, { email: "scoped@example.com", password: "the owner's own passphrase" })
    const held = heldSender()
    const log = captureLogger()
    const browser = app(adapter, held.mailer, { logger: log.logger }, () => {
      throw new Error("waitUntil called outside a request")
    })
    const known = await postStep(browser(), "forgot", { email: "scoped@example.com" })
    const unknown = await postStep(browser(), "forgot", { email: "nobody@example.com" })
    expect(known.location).toBe(unknown.location)
    expect(known.status).toBe(unknown.status)
    // The send begins after the answer (as above): on a loaded machine, after both answers.
    await vi.waitFor(() => expect(held.state.started).toBe(1))
    expect(held.state).toEqual({ started: 1, finished: 0 })
    expect(log.lines.some((l) => l.includes("waitUntil called outside a request"))).toBe(true)
    held.release()
  })
})

describe("sign-up does not wait for the mailer either", () => {
  it("a new and a known address are both answered while their mails are held", async () => {
    const adapter = MemoryAdapter()
    await seedUser(adapter, { email: "taken@example.com", password: "the owner's own passphrase" })
    const held = heldSender()
    const browser = app(adapter, held.mailer)
    const known = await postStep(browser(), "signup", { email: "taken@example.com", password: STRONG })
    const fresh = await postStep(browser(), "signup", { email: "fresh@example.com", password: STRONG })
    expect(held.state.finished).toBe(0)
    await vi.waitFor(() => expect(held.state.started).toBe(2))
    expect(held.state).toEqual({ started: 2, finished: 0 })
    expect(known.location).toBe(fresh.location)
    held.release()
  })
})

describe("a send that fails after the answer", () => {
  it("is logged without the link, and its token is deleted", async () => {
    const base = MemoryAdapter()
    await seedUser(base, { email: "bounce@example.com", password: "the owner's own passphrase" })
    const tokens: { identifier: string; token: string }[] = []
    const adapter: Adapter = { ...base, createVerificationToken: (vt) => (tokens.push(vt), base.createVerificationToken!(vt)) }
    let link = ""
    const failing: EmailConfig = {
      id: "failing",
      type: "email",
      name: "Failing",
      sendVerificationRequest: async ({ url }) => {
        link = url
        throw new Error(`SMTP 554 rejected message with ${url}`)
      },
    }
    const log = captureLogger()
    const handed: Promise<unknown>[] = []
    const browser = app(adapter, failing, { logger: log.logger }, (p) => void handed.push(p))
    const answer = await postStep(browser(), "forgot", { email: "bounce@example.com" })
    expect(answer.path).toBe("/auth/password/sent")
    await Promise.all(handed)
    expect(log.lines.some((l) => l.startsWith("EmailSignInError"))).toBe(true)
    expect(log.lines.join("\n")).not.toContain(new URL(link).searchParams.get("token")!)
    expect(await base.useVerificationToken!(tokens[0]!)).toBeNull()
  })
})

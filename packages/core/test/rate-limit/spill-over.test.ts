/**
 * Issue 28 item 7: one way in that an attacker wears out must not close the owner's others.
 * The tester's attack, from one address: five wrong passwords and five sign-in links for the
 * victim. The password lockout is meant; but the sign-in links and the password provider's
 * mails (reset, sign-up) counted on one per-mailbox counter, so the owner's forgot-password
 * was refused too — every way in shut by ten requests, while docs/rate-limiting.md promises
 * that email links stay open during a lockout.
 */
import { describe, expect, it } from "vitest"
import { createAuth } from "@portcullis/core"
import type { EmailConfig } from "@portcullis/core/providers/email"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../helpers.js"
import { grace, LIGHT, mailQueue, passwordSignIn, postStep, seedUser, STRONG } from "../password/support.js"

interface Mail {
  to: string
  url: URL
}

async function app() {
  const adapter = MemoryAdapter()
  // The password mails leave after the answer: each request waits for the ones it started.
  const queue = mailQueue()
  const mails: Mail[] = []
  const mailer = {
    id: "email",
    type: "email",
    name: "Email",
    from: "auth@example.com",
    maxAge: 24 * 60 * 60,
    async sendVerificationRequest({ identifier, url }: { identifier: string; url: string }) {
      mails.push({ to: identifier, url: new URL(url) })
    },
  } as unknown as EmailConfig
  const auth = createAuth({
    secret: SECRET,
    trustHost: false,
    trustedOrigins: ["http://localhost:3000"],
    adapter,
    providers: [mailer, Password({ hashing: LIGHT, mailer, waitUntil: queue.waitUntil })],
    // The defaults: 5 wrong passwords per 15 minutes, 5 mails per mailbox per hour.
    rateLimit: {},
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  })
  await seedUser(adapter, grace)
  const browser = (address: string) => new Browser(queue.settling((request) => auth.handle(request, { clientAddress: address })), "http://localhost:3000")
  const linksFor = (path: string) => mails.filter((m) => m.to === grace.email && m.url.pathname === path)
  return { browser, mails, linksFor }
}

async function requestSignInLink(browser: Browser, email: string) {
  const response = await browser.request("/auth/signin/email", { form: { email, csrfToken: await browser.csrfToken() } })
  return new URL(response.headers.get("location")!)
}

/** Follows an emailed sign-in link as its owner does: opened, and confirmed where the app asks. */
async function openSignInLink(browser: Browser, url: URL) {
  const opened = await browser.request(url.pathname + url.search)
  if (opened.status !== 200) return opened
  const form = Object.fromEntries([...(await opened.text()).matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, "&")]))
  return browser.request(url.pathname, { form })
}

const sessionSet = (response: Response) => response.headers.getSetCookie().some((c) => /^authjs\.session-token=[^;]/.test(c) && !/Max-Age=0/i.test(c))

describe("five wrong passwords and five sign-in links from one address", () => {
  it("leave the owner her reset link and the sign-in links in her inbox", async () => {
    const { browser, linksFor } = await app()
    const attacker = browser("203.0.113.66")
    for (let i = 0; i < 5; i++) expect((await passwordSignIn(attacker, { email: grace.email, password: `guess ${i}` })).error).toBe("CredentialsSignin")
    for (let i = 0; i < 5; i++) expect((await requestSignInLink(attacker, grace.email)).pathname).toBe("/auth/verify-request")

    const owner = browser("198.51.100.20")
    // The password is locked for now: that is the lockout, and all it closes.
    expect((await passwordSignIn(owner, grace)).error).toBe("RateLimited")
    // Forgot-password still mails her a reset link, and it works.
    expect((await postStep(owner, "forgot", { email: grace.email })).path).toBe("/auth/password/sent")
    const [reset] = linksFor("/auth/password/reset")
    expect(reset).toBeDefined()
    const done = await postStep(owner, "reset", { token: reset!.url.searchParams.get("token")!, email: grace.email, password: STRONG })
    expect(done.path).toBe("/auth/password/done")
    // The links the attacker had sent her sign her in.
    const links = linksFor("/auth/callback/email")
    expect(links).toHaveLength(5)
    expect(sessionSet(await openSignInLink(owner, links.at(-1)!.url))).toBe(true)
  })
})

describe("five reset requests from one address", () => {
  it("leave the owner's sign-in link", async () => {
    const { browser, linksFor } = await app()
    const attacker = browser("203.0.113.66")
    for (let i = 0; i < 5; i++) expect((await postStep(attacker, "forgot", { email: grace.email })).path).toBe("/auth/password/sent")
    expect(await postStep(attacker, "forgot", { email: grace.email })).toMatchObject({ error: "RateLimited" })

    const owner = browser("198.51.100.20")
    expect((await requestSignInLink(owner, grace.email)).pathname).toBe("/auth/verify-request")
    expect(linksFor("/auth/callback/email")).toHaveLength(1)
    expect((await passwordSignIn(owner, grace)).error).toBeNull()
  })
})

describe("a lockout with repeated strikes", () => {
  it("never stops the owner's mails", async () => {
    const { browser, linksFor } = await app()
    for (let i = 0; i < 12; i++) await passwordSignIn(browser(`203.0.113.${i + 1}`), { email: grace.email, password: "guess" })
    const owner = browser("198.51.100.20")
    expect((await requestSignInLink(owner, grace.email)).pathname).toBe("/auth/verify-request")
    expect((await postStep(owner, "forgot", { email: grace.email })).path).toBe("/auth/password/sent")
    expect(linksFor("/auth/callback/email")).toHaveLength(1)
    expect(linksFor("/auth/password/reset")).toHaveLength(1)
  })
})

describe("each kind of mail", () => {
  it("is still limited per mailbox, plus-tags and all", async () => {
    const { browser, mails } = await app()
    const results = []
    for (let i = 0; i < 6; i++) results.push((await requestSignInLink(browser(`203.0.113.${i + 1}`), `grace+${i}@example.com`)).searchParams.get("error"))
    for (let i = 0; i < 6; i++) results.push((await postStep(browser(`203.0.114.${i + 1}`), "forgot", { email: grace.email })).error)
    expect(results).toEqual([null, null, null, null, null, "RateLimited", null, null, null, null, null, "RateLimited"])
    expect(mails).toHaveLength(10)
  })
})

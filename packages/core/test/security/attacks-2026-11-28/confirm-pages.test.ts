/**
 * The pages issue 28 added in front of every emailed link (magic link, sign-up verification,
 * reset) and the re-authentication page, attacked as pages: other methods a scanner may
 * send, framing, open redirects through `callbackUrl`, markup injected through the link's
 * own parameters (the pages allow inline script, so an injection would run), and links an
 * attacker crafts with his own token. Each attack's steps, through `Auth()` with the
 * providers as an Auth.js user lists them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { Browser, SECRET } from "../../helpers.js"
import { requestLink, startSmtp, type TestSmtp } from "../../email/support.js"
import { formFields, LIGHT, mailQueue, postStep, seedUser, STRONG } from "../../password/support.js"

let smtp: TestSmtp
beforeAll(async () => {
  smtp = await startSmtp()
})
afterAll(() => smtp.close())

const ORIGIN = "http://localhost:3000"

function app() {
  const adapter = MemoryAdapter()
  const mail = mailQueue()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: [ORIGIN],
    adapter,
    session: { strategy: "database" },
    providers: [Nodemailer({ id: "email", server: smtp.url, from: "auth@example.com" }), Password({ hashing: LIGHT, waitUntil: mail.waitUntil })],
    logger: { error: () => {}, warn: () => {}, debug: () => {} },
  }
  const auth = createAuth(config)
  let n = 0
  const browser = () => new Browser(mail.settling((request) => auth.handle(request, { clientAddress: `203.0.113.${++n}` })), ORIGIN)
  return { adapter, browser }
}

/** The three kinds of emailed link, each freshly mailed; `use` is what the reader's button does. */
async function links(adapter: ReturnType<typeof app>["adapter"], browser: () => Browser) {
  await seedUser(adapter, { email: "grace@example.com", password: "grace's old passphrase" })
  await requestLink(browser(), "ada@example.com")
  const magic = smtp.linkFor("ada@example.com")
  await postStep(browser(), "signup", { email: "new@example.com", password: STRONG })
  const verify = smtp.linkFor("new@example.com")
  await postStep(browser(), "forgot", { email: "grace@example.com" })
  const reset = smtp.linkFor("grace@example.com")
  return { magic, verify, reset }
}

async function press(reader: Browser, link: string, extra: Record<string, string> = {}) {
  const page = await reader.request(link)
  const html = await page.text()
  const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1]?.replace(/&amp;/g, "&") ?? new URL(link).pathname
  return reader.request(action, { form: { ...formFields(html), ...extra } })
}

describe("a scanner that sends HEAD or OPTIONS", () => {
  it.each(["HEAD", "OPTIONS", "PUT", "DELETE"])("%s on every emailed link uses no token: the reader's button still works", async (method) => {
    const { adapter, browser } = app()
    const { magic, verify, reset } = await links(adapter, browser)
    for (const link of [magic, verify, reset]) {
      const scanner = browser()
      const response = await scanner.request(link, { method })
      expect(response.status).not.toBe(302)
      expect(response.headers.getSetCookie().some((c) => c.includes("session-token"))).toBe(false)
    }
    const ada = browser()
    await press(ada, magic)
    expect((await ada.session())?.user?.email).toBe("ada@example.com")
    const registrant = browser()
    expect(new URL((await press(registrant, verify)).headers.get("location")!).pathname).toBe("/auth/password/verified")
    const grace = browser()
    expect(new URL((await press(grace, reset, { password: "grace's brand new passphrase" })).headers.get("location")!).pathname).toBe("/auth/password/done")
  })
})

describe("the confirm pages cannot be framed (a clickjacked button would confirm for the attacker)", () => {
  it("every emailed link's page and the re-authentication page say frame-ancestors 'none' and DENY", async () => {
    const { adapter, browser } = app()
    const { magic, verify, reset } = await links(adapter, browser)
    for (const link of [magic, verify, reset, `${ORIGIN}/auth/reauthenticate`]) {
      const response = await browser().request(link)
      if (response.status !== 200) continue // the re-authentication page of a signed-out browser is a redirect
      expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'")
      expect(response.headers.get("x-frame-options")).toBe("DENY")
      expect(response.headers.get("referrer-policy")).toBe("same-origin")
    }
  })
})

describe("callbackUrl on a link (an attacker's own link, or one he edits before forwarding)", () => {
  const targets = ["https://evil.example/phish", "//evil.example/phish", "/\\evil.example/phish", "https:evil.example", "javascript:alert(1)", "http://localhost:3000.evil.example/"]

  it.each(targets)("the magic link's confirm page and its button never lead to %s", async (target) => {
    const { adapter, browser } = app()
    const { magic } = await links(adapter, browser)
    const edited = new URL(magic)
    edited.searchParams.set("callbackUrl", target)
    const reader = browser()
    const html = await (await reader.request(edited.href)).text()
    expect(formFields(html).callbackUrl ?? ORIGIN).toMatch(/^http:\/\/localhost:3000(\/|$)/)
    const answer = await press(reader, edited.href)
    expect(new URL(answer.headers.get("location")!).origin).toBe(ORIGIN)
  })

  it.each(targets)("the verification and reset pages carry no %s either", async (target) => {
    const { adapter, browser } = app()
    const { verify, reset } = await links(adapter, browser)
    for (const link of [verify, reset]) {
      const edited = new URL(link)
      edited.searchParams.set("callbackUrl", target)
      const html = await (await browser().request(edited.href)).text()
      const field = formFields(html).callbackUrl
      if (field !== undefined) expect(field).toMatch(/^http:\/\/localhost:3000(\/|$)/)
      expect(html).not.toContain("evil.example")
      expect(html).not.toContain("javascript:")
    }
  })

  it.each(targets)("the re-authentication page's form and its wrong-password answer never carry %s", async (target) => {
    const { adapter, browser } = app()
    await seedUser(adapter, { email: "ada@example.com", password: "ada's rather long passphrase" })
    const ada = browser()
    const csrfToken = await ada.csrfToken()
    await ada.request("/auth/callback/password", { form: { email: "ada@example.com", password: "ada's rather long passphrase", csrfToken } })
    const page = await ada.request(`/auth/reauthenticate?callbackUrl=${encodeURIComponent(target)}`)
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('name="password"')
    expect(html).not.toContain("evil.example")
    expect(html).not.toContain("javascript:")
    const wrong = await ada.request("/auth/reauthenticate", { form: { csrfToken: await ada.csrfToken(), password: "nope", callbackUrl: target } })
    expect(wrong.headers.get("location") ?? "").not.toContain("evil.example")
  })
})

describe("markup through the link's own parameters (the pages allow inline script)", () => {
  const payload = `"><script>alert(document.cookie)</script><img src=x onerror=alert(1)>`

  it("token, email and callbackUrl are escaped on the magic-link, verification and reset pages", async () => {
    const { browser } = app()
    const paths = ["/auth/callback/email", "/auth/password/verify", "/auth/password/reset"]
    for (const path of paths) {
      const url = new URL(path, ORIGIN)
      url.searchParams.set("token", payload)
      url.searchParams.set("email", `x${payload}@example.com`)
      url.searchParams.set("callbackUrl", `/${payload}`)
      const response = await browser().request(url.href)
      const html = await response.text()
      expect(html).not.toContain("<script>alert")
      expect(html).not.toContain("<img src=x")
      expect(html).not.toMatch(/<img[^>]*onerror/i)
    }
  })

  it("the sign-up and forgot pages' ?email= and ?error= are escaped", async () => {
    const { browser } = app()
    for (const step of ["signup", "forgot"]) {
      const html = await (await browser().request(`/auth/password/${step}?email=${encodeURIComponent(payload)}&error=${encodeURIComponent(payload)}`)).text()
      expect(html).not.toContain("<script>alert")
      expect(html).not.toMatch(/<img[^>]*onerror/i)
    }
  })
})

describe("an attacker's own magic link opened by the victim (login CSRF)", () => {
  it("the confirm page names the address the button signs in as, so the victim sees it is not hers", async () => {
    const { browser } = app()
    const mallory = browser()
    await requestLink(mallory, "mallory@evil.example")
    const link = smtp.linkFor("mallory@evil.example")
    const html = await (await browser().request(link)).text()
    expect(html).toContain("mallory@evil.example")
  })

  it("the button's POST without the page's CSRF pair (posted from the attacker's page) signs in no one", async () => {
    const { browser } = app()
    const mallory = browser()
    await requestLink(mallory, "mallory@evil.example")
    const link = new URL(smtp.linkFor("mallory@evil.example"))
    const victim = browser()
    const response = await victim.request("/auth/callback/email", {
      form: { token: link.searchParams.get("token")!, email: link.searchParams.get("email")!, csrfToken: "forged" },
      headers: { origin: "https://evil.example" },
    })
    expect(response.headers.getSetCookie().some((c) => c.includes("session-token") && !c.includes("Max-Age=0"))).toBe(false)
    expect(await victim.session()).toBeNull()
  })
})

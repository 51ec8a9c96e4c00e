/**
 * Issue 32: the identifier-first sign-in page (the default layout). OAuth buttons above, one
 * email field, then the methods configured for addresses — the same second step for every
 * address, known or not, with nothing looked up; a POST step without JavaScript; Auth.js's
 * layout as `theme.layout: "authjs"`; an unverified password account's own hint.
 * Driven through `Auth()` on PostgreSQL (the memory adapter where PostgreSQL is missing).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createAuth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import GitHub from "@portcullis/core/providers/github"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import Passkey from "@portcullis/core/providers/passkey"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { openTestDatabase } from "@portcullis/sql-adapter/testing"
import { Browser, SECRET } from "../helpers.js"
import { postgresGate } from "../postgres-gate.js"
import { grace, seedUser } from "../password/support.js"

const { service, postgres } = await postgresGate()
const origin = "http://localhost:3000"
const silent = { error: () => {}, warn: () => {}, debug: () => {} }

/** Counts every adapter call, so a test can say the step looked nothing up. */
function counting(adapter: Adapter): { adapter: Adapter; calls: string[] } {
  const calls: string[] = []
  const proxy = new Proxy(adapter, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver)
      if (typeof value !== "function") return value
      return (...args: unknown[]) => {
        calls.push(String(name))
        return value.apply(target, args)
      }
    },
  })
  return { adapter: proxy, calls }
}

function config(adapter: Adapter, extra: Partial<AuthConfig> = {}): AuthConfig {
  return {
    secret: SECRET,
    trustHost: false,
    trustedOrigins: [origin],
    adapter,
    experimental: { enableWebAuthn: true },
    providers: [
      GitHub({ clientId: "id", clientSecret: "secret" }),
      Passkey({}),
      Password({ waitUntil: () => {} }),
      Nodemailer({ server: "smtp://127.0.0.1:9", from: "auth@example.com" }),
    ],
    logger: silent,
    ...extra,
  }
}

function browserFor(cfg: AuthConfig, address = "198.51.100.7") {
  const auth = createAuth(cfg)
  return new Browser((request) => auth.handle(request, { clientAddress: address }), origin)
}

/** Posts the first step (the email field) the way the page's form does. */
async function identify(browser: Browser, email: string, fields: Record<string, string> = {}) {
  const csrfToken = await browser.csrfToken()
  const response = await browser.request("/auth/signin", { form: { csrfToken, callbackUrl: "/", email, ...fields } })
  return { response, status: response.status, body: await response.text() }
}

/** The body with the values that differ by design blanked: CSRF tokens and the address itself. */
function normalized(body: string, email: string): string {
  return body.replace(/name="csrfToken" value="[^"]*"/g, 'name="csrfToken" value=""').replaceAll(email, "ADDRESS")
}

/** Inputs a person can see: not type=hidden and without the `hidden` attribute. */
function visibleInputs(body: string): string[] {
  return [...body.matchAll(/<input [^>]*>/g)].map((m) => m[0]).filter((tag) => !/type="hidden"|\shidden[\s>]/.test(tag))
}

/** The part of the page that shows: everything outside the hidden second step. */
function shown(body: string): string {
  const start = body.indexOf('<div class="methods" data-identifier-methods hidden>')
  return start === -1 ? body : body.slice(0, start) + body.slice(body.indexOf("<script>", start))
}

function suite(label: string, open: () => Promise<{ adapter: Adapter; close(): Promise<void> }>) {
  describe(`identifier-first sign-in on ${label}`, () => {
    let db: { adapter: Adapter; close(): Promise<void> }
    beforeAll(async () => {
      db = await open()
      await seedUser(db.adapter, { ...grace, verified: false })
      await seedUser(db.adapter, { email: "known@example.com", password: grace.password })
    })
    afterAll(async () => db?.close())

    describe("the first step: OAuth above, one email field", () => {
      it("shows one email field and a Continue button, GitHub's button before it, title and heading alike", async () => {
        const body = await (await browserFor(config(db.adapter)).request("/auth/signin")).text()
        const page = shown(body)
        expect(visibleInputs(page)).toHaveLength(1)
        expect(visibleInputs(page)[0]).toContain('autocomplete="username webauthn"')
        expect(page.indexOf("Sign in with GitHub")).toBeLessThan(page.indexOf('name="email"'))
        expect(page).toContain(">Continue</button>")
        expect(body).toContain("<title>Sign in</title>")
        expect(body).toContain("<h1>Sign in</h1>")
        // Only one "or": between the OAuth buttons and the email field.
        expect(page.match(/class="divider"/g)).toHaveLength(1)
      })

      it("names the kinds in the page's language (Passwort, E-Mail), brands as written", async () => {
        const response = await browserFor(config(db.adapter)).request("/auth/signin", { headers: { "accept-language": "de" } })
        const body = await response.text()
        expect(body).toContain("Mit GitHub anmelden")
        expect(body).toContain("Mit Passwort anmelden")
        expect(body).toContain("Mit Passkey anmelden")
        expect(body).not.toContain("Mit Password anmelden")
        expect(body).toContain("<title>Anmelden</title>")
      })
    })

    describe("the second step: the same for every address", () => {
      it("answers a known and an unknown address byte for byte alike (but the address and CSRF token)", async () => {
        const cfg = config(db.adapter)
        const known = await identify(browserFor(cfg), "known@example.com")
        const unknown = await identify(browserFor(cfg), "nobody-here@example.com")
        expect(known.status).toBe(200)
        expect(unknown.status).toBe(200)
        expect(normalized(unknown.body, "nobody-here@example.com")).toBe(normalized(known.body, "known@example.com"))
        expect([...unknown.response.headers.keys()].sort()).toEqual([...known.response.headers.keys()].sort())
      })

      it("looks nothing up: no adapter call between the POST and its answer", async () => {
        const { adapter, calls } = counting(db.adapter)
        const browser = browserFor(config(adapter))
        const csrfToken = await browser.csrfToken()
        calls.length = 0
        const response = await browser.request("/auth/signin", { form: { csrfToken, email: "known@example.com" } })
        expect(response.status).toBe(200)
        expect(calls).toEqual([])
      })

      it("works without JavaScript: each method is a form carrying the address, password managers get a username", async () => {
        const { body } = await identify(browserFor(config(db.adapter)), "known@example.com")
        expect(body).toContain(`Signing in as <strong dir="auto" data-identifier-shown>known@example.com</strong>`)
        expect(body).toContain(`action="${origin}/auth/callback/password"`)
        expect(body).toContain(`action="${origin}/auth/signin/nodemailer"`)
        expect(body).toContain('data-webauthn-provider="passkey"')
        expect(body.match(/<input type="email" name="email" value="known@example.com" autocomplete="username" hidden data-identifier-email>/g)).toHaveLength(3)
        expect(visibleInputs(body).map((tag) => /name="([^"]+)"/.exec(tag)![1])).toEqual(["password"])
        expect(body).toContain('href="/auth/signin">Use a different email</a>')
        expect(body).toContain(">Email me a sign-in link</button>")
        // The second step hides the OAuth buttons and needs no step script.
        expect(body).not.toContain("Sign in with GitHub")
        expect(body).not.toContain("data-identifier-step")
      })

      it("the password form signs in from the second step", async () => {
        const browser = browserFor(config(db.adapter))
        const { body } = await identify(browser, "known@example.com")
        const csrfToken = /name="csrfToken" value="([^"]*)"/.exec(body)![1]!
        const response = await browser.request("/auth/callback/password", { form: { csrfToken, callbackUrl: "/", email: "known@example.com", password: grace.password } })
        expect(response.status).toBe(302)
        expect(new URL(response.headers.get("location")!, origin).searchParams.get("error")).toBeNull()
        expect((await browser.session()).user.email).toBe("known@example.com")
      })

      it("answers 50 steps at once, known and unknown addresses alike", async () => {
        const cfg = config(db.adapter)
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) => {
            const email = i % 2 ? `known@example.com` : `stranger-${i}@example.com`
            return identify(browserFor(cfg, `198.51.100.${i + 1}`), email).then((r) => ({ ...r, email }))
          }),
        )
        const shapes = new Set(results.map((r) => `${r.status}\n${normalized(r.body, r.email)}`))
        expect(results.every((r) => r.status === 200)).toBe(true)
        expect(shapes.size).toBe(1)
      })
    })

    describe("the unverified password account", () => {
      it("with the right password: its own localized hint pointing to the confirmation link and “Forgot password?”", async () => {
        const browser = browserFor(config(db.adapter))
        const csrfToken = await browser.csrfToken()
        const response = await browser.request("/auth/callback/password", { form: { csrfToken, email: grace.email, password: grace.password } })
        const location = new URL(response.headers.get("location")!, origin)
        expect(location.searchParams.get("code")).toBe("unverified")
        const page = await (await browser.request(location.pathname + location.search, { headers: { "accept-language": "de" } })).text()
        expect(page).toContain("Ihre E-Mail-Adresse ist noch nicht bestätigt.")
        expect(page).toContain("Passwort vergessen?")
      })

      it("with a wrong password: the generic refusal, as for an unknown address", async () => {
        const browser = browserFor(config(db.adapter))
        const csrfToken = await browser.csrfToken()
        const wrong = await browser.request("/auth/callback/password", { form: { csrfToken, email: grace.email, password: "not it at all, sorry" } })
        const unknown = await browser.request("/auth/callback/password", { form: { csrfToken, email: "nobody-here@example.com", password: "not it at all, sorry" } })
        expect(wrong.headers.get("location")).toBe(unknown.headers.get("location"))
        expect(new URL(wrong.headers.get("location")!).searchParams.get("code")).toBe("credentials")
      })
    })

    describe("the attacker's tests", () => {
      it("refuses the step without the CSRF token: no second step rendered", async () => {
        const browser = browserFor(config(db.adapter))
        await browser.csrfToken()
        for (const form of [{ email: "known@example.com" }, { email: "known@example.com", csrfToken: "forged" }]) {
          const response = await browser.request("/auth/signin", { form })
          const body = await response.text()
          expect(response.status).toBe(302)
          expect(response.headers.get("location")).toContain("error=MissingCSRF")
          expect(body).not.toContain("data-identifier-methods")
        }
      })

      it("reflects a hostile address as text only", async () => {
        const hostile = `"><script>alert(1)</script><img src=x onerror=alert(2)>@example.com`
        const { status, body } = await identify(browserFor(config(db.adapter)), hostile)
        expect(status).toBe(400)
        expect(body).not.toContain("<script>alert(1)")
        expect(body).not.toContain("<img src=x")
        expect(body).toContain("&lt;script&gt;alert(1)&lt;/script&gt;")
        const spaceless = `"><svg/onload=alert(1)>@example.com`
        const second = await identify(browserFor(config(db.adapter)), spaceless)
        expect(second.status).toBe(200)
        expect(second.body).not.toContain("<svg/onload")
        expect(second.body).toContain("&quot;&gt;&lt;svg/onload=alert(1)&gt;@example.com")
      })

      it("never carries a hostile callbackUrl into the forms", async () => {
        for (const callbackUrl of ["javascript:alert(1)", "https://evil.example/steal", `/"><script>alert(1)</script>`]) {
          const browser = browserFor(config(db.adapter))
          const csrfToken = await browser.csrfToken()
          const response = await browser.request("/auth/signin", { form: { csrfToken, callbackUrl, email: "known@example.com" } })
          const body = await response.text()
          expect(response.status).toBeLessThan(500)
          expect(body).not.toContain("javascript:alert")
          expect(body).not.toContain("evil.example")
          expect(body).not.toContain("<script>alert(1)")
        }
      })

      it("answers huge input with a 4xx, never a 500", async () => {
        const browser = browserFor(config(db.adapter))
        expect((await identify(browser, `${"a".repeat(400)}@example.com`)).status).toBe(400)
        expect((await identify(browser, "")).status).toBe(400)
        const huge = await identify(browser, `${"a".repeat(2_000_000)}@example.com`)
        expect(huge.status).toBeGreaterThanOrEqual(400)
        expect(huge.status).toBeLessThan(500)
      })
    })

    describe("two instances, one store", () => {
      it("a step posted to another instance than the one that served the page answers alike (no state between them)", async () => {
        const cfg = config(db.adapter)
        const first = createAuth(cfg)
        const second = createAuth(cfg)
        const browser = new Browser((request) => (new URL(request.url).pathname === "/auth/csrf" ? first : second).handle(request, { clientAddress: "198.51.100.9" }), origin)
        const answer = await identify(browser, "known@example.com")
        const alone = await identify(browserFor(cfg), "known@example.com")
        expect(answer.status).toBe(200)
        expect(normalized(answer.body, "known@example.com")).toBe(normalized(alone.body, "known@example.com"))
      })
    })

    describe("faults", () => {
      it("answers the step while the store is down: nothing was asked of it", async () => {
        const down = new Proxy(db.adapter, {
          get(target, name, receiver) {
            const value = Reflect.get(target, name, receiver)
            return typeof value === "function" ? () => Promise.reject(new Error("store down")) : value
          },
        })
        const { status, body } = await identify(browserFor(config(down)), "known@example.com")
        expect(status).toBe(200)
        expect(body).toContain(`action="${origin}/auth/callback/password"`)
      })
    })

    describe("Auth.js's layout (theme.layout: authjs)", () => {
      it("renders one form per provider, as before, and a POST /signin with an address goes to the page as Auth.js's does", async () => {
        const cfg = config(db.adapter, { theme: { layout: "authjs" } })
        const browser = browserFor(cfg)
        const body = await (await browser.request("/auth/signin")).text()
        expect(body).toContain("<title>Sign In</title>")
        expect(body).not.toContain("data-identifier-step")
        expect(visibleInputs(body).filter((tag) => tag.includes('name="email"')).length).toBe(3)
        const { status, response } = await identify(browser, "known@example.com")
        expect(status).toBe(302)
        expect(response.headers.get("location")).toBe(`${origin}/auth/signin`)
      })
    })
  })
}

suite("the memory adapter", async () => ({ adapter: MemoryAdapter(), close: async () => {} }))
postgres.describe("PostgreSQL", () => {
  suite("PostgreSQL", () => openTestDatabase("postgres", { url: service.url }))
})

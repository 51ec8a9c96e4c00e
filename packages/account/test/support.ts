/**
 * The account center's test bed: a configuration with the extension on an adapter (memory
 * unless told), password and passkey sign-in, GitHub as a linkable provider, two-factor, a
 * mailer that keeps what it was handed, and people who sign in with their password in their
 * own browser (a session registry makes JWT sessions listable; or database sessions).
 */
import { vi } from "vitest"
import type { AuditEvent, AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { createAuth } from "@portcullis/core"
import GitHub from "@portcullis/core/providers/github"
import Passkey from "@portcullis/core/providers/passkey"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { account, type AccountOptions } from "@portcullis/account"
import { Browser, SECRET, captureLogger } from "../../core/test/helpers.js"
import { LIGHT, seedUser } from "../../core/test/password/support.js"
import { captureMailer } from "../../organizations/test/support.js"

export const PASSWORD = "a long and rather unguessable passphrase"
export const NEW_PASSWORD = "violet tractor sandwich orbit lantern"

export interface TestbedOptions {
  strategy?: "jwt" | "database"
  adapter?: Adapter
  extension?: AccountOptions
  config?: Partial<AuthConfig>
  /** Mail core's security notices too (the old address's `emailChanged`). */
  notices?: boolean
}

export function testbed(options: TestbedOptions = {}) {
  const adapter = options.adapter ?? MemoryAdapter()
  const mail = captureMailer()
  const audit: AuditEvent[] = []
  const log = captureLogger()
  const strategy = options.strategy ?? "jwt"
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    experimental: { enableWebAuthn: true },
    session: strategy === "jwt" ? { strategy, registry: new MemorySessionRegistry() } : { strategy, metadata: true },
    providers: [Password({ hashing: LIGHT }), Passkey, GitHub({ clientId: "id", clientSecret: "secret" })],
    twoFactor: {},
    rateLimit: false,
    logger: log.logger,
    notifications: { mailer: mail.mailer, email: options.notices ?? false },
    extensions: [account(options.extension)],
    events: { audit: (event) => void audit.push(event) },
    ...options.config,
  }
  const auth = createAuth(config)
  const browser = (address = "198.51.100.7", userAgent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0") =>
    new Browser(async (request) => {
      const headers = new Headers(request.headers)
      if (!headers.has("user-agent")) headers.set("user-agent", userAgent)
      return auth.handle(new Request(request, { headers }), { clientAddress: address })
    })

  /** A person with a password account, signed in (and so freshly stepped up). */
  async function person(name: string, opts: { password?: boolean; userAgent?: string; signedIn?: boolean } = {}) {
    const email = `${name}@example.com`
    const user = opts.password === false
      ? await adapter.createUser!({ id: crypto.randomUUID(), email, emailVerified: new Date(), name: null, image: null })
      : await seedUser(adapter, { email, password: PASSWORD })
    const actor = new Actor(user.id, email, browser(undefined, opts.userAgent))
    if (opts.password !== false && opts.signedIn !== false) await actor.signIn()
    return actor
  }

  class Actor {
    constructor(
      readonly id: string,
      readonly email: string,
      readonly browser: Browser,
    ) {}

    async signIn(password = PASSWORD): Promise<void> {
      const csrfToken = await this.browser.csrfToken()
      const response = await this.browser.request("/auth/callback/password", { form: { email: this.email, password, csrfToken } })
      if (response.status !== 302 || (response.headers.get("location") ?? "").includes("error=")) throw new Error(`sign-in failed: ${response.headers.get("location")}`)
    }

    /** The same person in another browser: a second session. */
    async anotherSession(userAgent?: string): Promise<Actor> {
      const other = new Actor(this.id, this.email, browser(undefined, userAgent))
      await other.signIn()
      return other
    }

    /** A copy of this browser's cookies: a thief's. */
    stolen(): Actor {
      const thief = new Actor(this.id, this.email, browser("203.0.113.66"))
      for (const [k, v] of this.browser.jar) thief.browser.jar.set(k, { ...v })
      return thief
    }

    /** A JSON call to an account route, with the CSRF header on a POST. */
    async call(method: "GET" | "POST", path: string, body: Record<string, unknown> = {}): Promise<{ status: number; body: any; response: Response }> {
      const url = `/auth/account${path ? `/${path}` : ""}`
      const response = method === "GET" ? await this.browser.request(url) : await this.browser.request(url, { json: body, headers: { "x-csrf-token": await this.browser.csrfToken() } })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      return { status: response.status, body: parsed, response }
    }

    get = (path: string) => this.call("GET", path)
    post = (path: string, body: Record<string, unknown> = {}) => this.call("POST", path, body)

    /** A form post as the page sends it (the token in the body). */
    async form(path: string, fields: Record<string, string> = {}): Promise<{ status: number; location: string | null; text: string }> {
      const csrfToken = await this.browser.csrfToken()
      const response = await this.browser.request(`/auth/account/${path}`, { form: { ...fields, csrfToken } })
      return { status: response.status, location: response.headers.get("location"), text: await response.text() }
    }

    /** The page, as HTML. */
    async page(query = "", language = "en"): Promise<{ status: number; html: string; response: Response }> {
      const response = await this.browser.request(`/auth/account${query}`, { headers: { accept: "text/html", "accept-language": language } })
      return { status: response.status, html: await response.text(), response }
    }
  }

  /** The account extension's audit events (`account.*`), as `name/outcome`. */
  const events = () => audit.filter((e) => e.type.startsWith("account.")).map((e) => `${e.type.slice("account.".length)}/${e.outcome}`)

  /** The last email-change link mailed to `email`. */
  function linkFor(email: string): { url: string; token: string; email: string } {
    const found = [...mail.sent].reverse().find((m) => m.to === email && m.url.includes("/account/email/confirm"))
    if (!found) throw new Error(`no email-change link mailed to ${email}`)
    const url = new URL(found.url)
    return { url: found.url, token: url.searchParams.get("token")!, email: url.searchParams.get("email")! }
  }

  return { adapter, mail, audit, events, log, config, auth, person, linkFor, browser }
}

export type Testbed = ReturnType<typeof testbed>
export type Actor = Awaited<ReturnType<Testbed["person"]>>

/** Moves Date forward (sockets and timers run as usual): a step-up grows stale. */
export function later(ms: number): void {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() })
  vi.setSystemTime(Date.now() + ms)
}

/** A passkey row for `userId`, as a registration would store it (with its account row). */
export async function plantPasskey(adapter: Adapter, userId: string, id: string, name: string | null = null): Promise<void> {
  await adapter.linkAccount!({ userId, type: "webauthn", provider: "passkey", providerAccountId: id })
  await adapter.createAuthenticator!({ credentialID: id, userId, providerAccountId: id, counter: 0, credentialBackedUp: true, credentialPublicKey: "AAAA", credentialDeviceType: "multiDevice", transports: "internal,hybrid", ...(name && { name }) })
}

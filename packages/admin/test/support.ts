/**
 * The admin console's test bed: a configuration with the admin extension on a ban store, a
 * memory adapter (users, sessions, the audit trail, two-factor records), sign-in by
 * credentials (JWT sessions with a registry, or database sessions), and people each in
 * their own browser. `ada@example.com` is the admin (`isAdmin`); `root` has the admin role.
 */
import type { AuditEvent, AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { extensionFunctions } from "@portcullis/core/integration"
import type { Adapter } from "@portcullis/core/adapters"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { admin, type AdminOptions, type AdminServer, type BanStore } from "@portcullis/admin"
import { memoryBanStore } from "@portcullis/admin/memory"
import { Browser, SECRET, captureLogger, direct } from "../../core/test/helpers.js"

export const ADMIN_EMAIL = "ada@example.com"

export interface TestbedOptions {
  strategy?: "jwt" | "database"
  store?: BanStore
  adapter?: Adapter
  extension?: Partial<AdminOptions>
  config?: Partial<AuthConfig>
}

export function testbed(options: TestbedOptions = {}) {
  const adapter = options.adapter ?? MemoryAdapter()
  const store = options.store ?? memoryBanStore()
  const audit: AuditEvent[] = []
  const log = captureLogger()
  const strategy = options.strategy ?? "jwt"
  const extension = admin({ store, isAdmin: (user) => user.email === ADMIN_EMAIL, roles: ["admin"], ...options.extension })
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy, ...(strategy === "jwt" && { registry: new MemorySessionRegistry() }) },
    rateLimit: false,
    logger: log.logger,
    providers: [
      Credentials({
        credentials: { email: { label: "Email" } },
        async authorize({ email }) {
          const user = await adapter.getUserByEmail!(String(email))
          return user ? { id: user.id, email: user.email, name: user.name ?? null } : null
        },
      }),
    ],
    extensions: [extension],
    events: { audit: (event) => void audit.push(event) },
    ...options.config,
  }

  /** A person with an account, signed in (unless told) in their own browser. */
  async function person(name: string, opts: { email?: string; role?: string; signedIn?: boolean; verified?: boolean } = {}) {
    const email = opts.email ?? `${name}@example.com`
    const user = await adapter.createUser!({
      id: `user-${name}`,
      email,
      name: name[0]!.toUpperCase() + name.slice(1),
      emailVerified: opts.verified === false ? null : new Date(),
      ...(opts.role && { role: opts.role }),
    } as never)
    const actor = new Actor(user.id, email, new Browser(direct(config)))
    if (opts.signedIn !== false) {
      const response = await actor.signIn()
      if (response.status !== 302 || new URL(response.headers.get("location")!).searchParams.has("error")) throw new Error(`sign-in failed: ${response.headers.get("location")}`)
    }
    return actor
  }

  class Actor {
    constructor(
      readonly id: string,
      readonly email: string,
      readonly browser: Browser,
    ) {}

    /** A credentials sign-in (JWT), or a row made through the adapter as a sign-in would (database). */
    signIn(): Promise<Response> {
      return this.browser.signIn({ email: this.email })
    }

    /** Another browser of the same person, not signed in yet. */
    async anotherBrowserUnsigned(): Promise<Actor> {
      return new Actor(this.id, this.email, new Browser(direct(config)))
    }

    /** Another browser of the same person, signed in: a second session. */
    async anotherBrowser(): Promise<Actor> {
      const other = new Actor(this.id, this.email, new Browser(direct(config)))
      await other.signIn()
      return other
    }

    async call(method: "GET" | "POST", path: string, body: Record<string, unknown> = {}, json = true): Promise<{ status: number; body: any; response: Response }> {
      const url = `/auth/admin${path ? `/${path}` : ""}`
      const response =
        method === "GET"
          ? await this.browser.request(url, json ? {} : { headers: { accept: "text/html" } })
          : json
            ? await this.browser.request(url, { json: body, headers: { "x-csrf-token": await this.browser.csrfToken() } })
            : await this.browser.request(url, { form: { ...(body as Record<string, string>), csrfToken: await this.browser.csrfToken() } })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      return { status: response.status, body: parsed, response }
    }

    get = (path: string) => this.call("GET", path)
    page = (path: string) => this.call("GET", path, {}, false)
    post = (path: string, body: Record<string, unknown> = {}) => this.call("POST", path, body)
    form = (path: string, body: Record<string, string> = {}) => this.call("POST", path, body, false)

    /** The server functions, bound to this person's request. */
    server(method = "POST"): AdminServer {
      const functions = extensionFunctions({ origin: this.browser.origin, method, headers: new Headers({ cookie: this.browser.cookieHeader() }) }, config) as Promise<Record<string, unknown>>
      functions.catch(() => {})
      return new Proxy({}, {
        get: (_, name) => async (...args: unknown[]) => ((await functions).admin as Record<string, (...a: unknown[]) => unknown>)[name as string]!(...args),
      }) as AdminServer
    }

    async session(): Promise<any> {
      return this.browser.session()
    }
  }

  /** The extension's audit events (`admin.*`), as `type/outcome`. */
  const events = () => audit.filter((e) => e.type.startsWith("admin.")).map((e) => `${e.type.slice("admin.".length)}/${e.outcome}`)

  return { adapter, store, audit, events, log, config, person }
}

export type Testbed = ReturnType<typeof testbed>
export type Actor = Awaited<ReturnType<Testbed["person"]>>

/** Where a redirect sends the browser, and its `?error=`. */
export function redirectOf(response: Response): { path: string; error: string | null } {
  const location = response.headers.get("location")
  if (!location) throw new Error(`expected a redirect, got ${response.status}`)
  const url = new URL(location)
  return { path: url.pathname, error: url.searchParams.get("error") }
}

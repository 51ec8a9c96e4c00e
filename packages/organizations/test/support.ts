/**
 * The test bed of organizations: a configuration with the extension on a memory store, a
 * memory adapter holding users (verified or not), a mailer that keeps what it was handed,
 * and people who sign in (JWT) or hold a database session, each with their own browser.
 */
import type { AuditEvent, AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import type { EmailConfig, SendVerificationRequestParams } from "@portcullis/core/providers/email"
import { extensionFunctions } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { organizations, type OrganizationsOptions, type OrganizationsServer, type PermissionOf, type RoleDefinitions, type RoleOf } from "@portcullis/organizations"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import type { OrganizationStore } from "@portcullis/organizations"
import { Browser, SECRET, captureLogger, direct } from "../../core/test/helpers.js"

/** An email the extension sent, as the sender got it. */
export interface SentMail {
  to: string
  url: string
  locale: string
  messages: Record<string, string>
}

/** A sender for `notifications.mailer` that keeps every email; `failing()` makes it throw. */
export function captureMailer(failing: () => boolean = () => false) {
  const sent: SentMail[] = []
  const mailer: EmailConfig = {
    id: "capture",
    name: "Capture",
    type: "email",
    from: "Team <team@example.com>",
    async sendVerificationRequest(params: SendVerificationRequestParams) {
      if (failing()) throw new Error("the mail server refused the connection")
      const { identifier, url, language } = params
      sent.push({ to: identifier, url, locale: language.locale, messages: { ...(language.messages as unknown as Record<string, string>) } })
    },
  }
  return { mailer, sent }
}

/** The roles the suites use: an app role and an extra admin permission. */
export const ROLES = { billing: ["invoice:pay", "invoice:read"], admin: ["project:create"] } as const

export interface TestbedOptions {
  strategy?: "jwt" | "database"
  store?: OrganizationStore
  roles?: RoleDefinitions
  extension?: Partial<OrganizationsOptions>
  config?: Partial<AuthConfig>
  /** The browsers' origin (a forged Host in tests of origin trust). */
  origin?: string
  mailFails?: () => boolean
}

/** A configuration with organizations, and helpers to make people and act as them. */
export function testbed(options: TestbedOptions = {}) {
  const adapter = MemoryAdapter()
  const store = options.store ?? memoryOrganizationStore()
  const mail = captureMailer(options.mailFails)
  const audit: AuditEvent[] = []
  const log = captureLogger()
  const extension = organizations({ store, roles: options.roles ?? ROLES, ...options.extension })
  const strategy = options.strategy ?? "jwt"
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy },
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
    notifications: { mailer: mail.mailer, email: false },
    extensions: [extension],
    events: { audit: (event) => void audit.push(event) },
    ...options.config,
  }
  let sessions = 0

  /** A person with an account (verified unless told), signed in in their own browser. */
  async function person(name: string, opts: { verified?: boolean; email?: string; signedIn?: boolean } = {}) {
    const email = opts.email ?? `${name}@example.com`
    const user = await adapter.createUser!({ id: `user-${name}`, email, name: name[0]!.toUpperCase() + name.slice(1), emailVerified: opts.verified === false ? null : new Date() })
    const browser = new Browser(direct(config), options.origin)
    const actor = new Actor(user.id, email, browser, config)
    if (opts.signedIn !== false) await actor.signIn()
    return actor
  }

  class Actor {
    constructor(
      readonly id: string,
      readonly email: string,
      readonly browser: Browser,
      readonly config: AuthConfig,
    ) {}

    async signIn(): Promise<void> {
      if (strategy === "jwt") {
        const response = await this.browser.signIn({ email: this.email })
        if (response.status !== 302) throw new Error(`sign-in failed: ${response.status}`)
        return
      }
      // Credentials sign-in needs JWT sessions; a database session is made through the adapter.
      const sessionToken = `session-${this.id}-${++sessions}`
      await adapter.createSession!({ sessionToken, userId: this.id, expires: new Date(Date.now() + 3600_000) })
      this.browser.jar.set("authjs.session-token", { value: sessionToken, attributes: {} })
    }

    /** The same person signed in again in another browser: a second session. */
    async anotherSession(): Promise<Actor> {
      const other = new Actor(this.id, this.email, new Browser(direct(config), options.origin), config)
      await other.signIn()
      return other
    }

    /** A JSON request to an organizations route, with the CSRF header on a POST. */
    async call(method: "GET" | "POST", path: string, body: Record<string, unknown> = {}): Promise<{ status: number; body: any; response: Response }> {
      const url = `/auth/organizations${path ? `/${path}` : ""}`
      const response =
        method === "GET"
          ? await this.browser.request(url)
          : await this.browser.request(url, { json: body, headers: { "x-csrf-token": await this.browser.csrfToken() } })
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {}
      return { status: response.status, body: parsed, response }
    }

    get = (path: string) => this.call("GET", path)
    post = (path: string, body: Record<string, unknown> = {}) => this.call("POST", path, body)

    /** The server functions, bound to this person's request. */
    server(method = "POST"): OrganizationsServer<PermissionOf<typeof ROLES>, RoleOf<typeof ROLES>> {
      const functions = extensionFunctions({ origin: this.browser.origin, method, headers: new Headers({ cookie: this.browser.cookieHeader() }) }, config) as Promise<Record<string, unknown>>
      functions.catch(() => {})
      // Each function awaits the functions (ready once the configuration's extensions are set up).
      return new Proxy({}, {
        get: (_, name) => async (...args: unknown[]) => ((await functions).organizations as Record<string, (...a: unknown[]) => unknown>)[name as string]!(...args),
      }) as OrganizationsServer<PermissionOf<typeof ROLES>, RoleOf<typeof ROLES>>
    }

    async session(): Promise<any> {
      return this.browser.session()
    }
  }

  /** The token and id in the last invitation mailed to `email`. */
  function invitationFor(email: string): { id: string; token: string; url: string } {
    const found = [...mail.sent].reverse().find((m) => m.to === email && m.url.includes("/organizations/invitations/"))
    if (!found) throw new Error(`no invitation mailed to ${email}`)
    const url = new URL(found.url)
    return { id: url.pathname.split("/").at(-1)!, token: url.searchParams.get("token")!, url: found.url }
  }

  /** The extension's audit events (`organizations.*`), as `type/outcome`. */
  const events = () => audit.filter((e) => e.type.startsWith("organizations.")).map((e) => `${e.type.slice("organizations.".length)}/${e.outcome}`)

  return { adapter, store, mail, audit, events, log, config, person, invitationFor }
}

export type Testbed = ReturnType<typeof testbed>
export type Actor = Awaited<ReturnType<Testbed["person"]>>

/**
 * An organization owned by `owner` with one member per other role: `admin`, `member`,
 * `billing`, each joined by invitation (the real flow).
 */
export async function team(bed: Testbed) {
  const owner = await bed.person("olivia")
  const created = await owner.post("", { name: "Acme" })
  if (created.status !== 201) throw new Error(`create failed: ${JSON.stringify(created.body)}`)
  const id: string = created.body.organization.id
  const join = async (name: string, role: string) => {
    const someone = await bed.person(name)
    const invited = await owner.post(`${id}/invitations`, { email: someone.email, role })
    if (invited.status !== 201) throw new Error(`invite failed: ${JSON.stringify(invited.body)}`)
    const { id: invitationId, token } = bed.invitationFor(someone.email)
    const accepted = await someone.post(`invitations/${invitationId}/accept`, { token })
    if (accepted.status !== 200) throw new Error(`accept failed: ${JSON.stringify(accepted.body)}`)
    return someone
  }
  const admin = await join("adam", "admin")
  const member = await join("mia", "member")
  const billing = await join("bill", "billing")
  return { id, owner, admin, member, billing }
}

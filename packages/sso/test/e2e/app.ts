/**
 * The app the SSO end-to-end tests sign in to: a `node:http` server handing `/auth/*` to
 * `Auth(request, config)` — password accounts (so the identifier-first page has its email
 * field), JWT sessions with a session registry or database sessions, `organizations` and `sso`
 * on the stores given — and two pages of its own (`/` and `/dashboard`) to land on.
 *
 * Set-up goes through the real management API as an organization's owner does: the owner signs
 * in with a password (which also makes their step-up fresh) and calls the server functions
 * (`extensionFunctions`) with their cookies.
 * @module
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { extensionFunctions } from "@portcullis/core/integration"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { organizations, type OrganizationStore } from "@portcullis/organizations"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import { sso, type ConnectionInput, type ConnectionView, type SsoStore } from "@portcullis/sso"
import { memorySsoStore } from "@portcullis/sso/memory"
import { Browser, SECRET } from "../../../core/test/helpers.js"
import { authListener } from "../../../core/test/http-server.js"
import { LIGHT, passwordSignIn, seedUser } from "../../../core/test/password/support.js"
import type { DnsServer } from "../fixtures/dns-server.js"

export interface SsoAppOptions {
  strategy?: "jwt" | "database"
  store?: SsoStore
  orgStore?: OrganizationStore
  adapter?: Adapter
  /** JWT sessions' registry (shared by instances); default a memory one. */
  registry?: MemorySessionRegistry
  /** The DNS server domain claims are checked against (only its `servers` are used). */
  dns: Pick<DnsServer, "servers">
  port?: number
  /**
   * The app's host name: `"localhost"` makes it another *site* than the IdPs on 127.0.0.1, so
   * the IdP's post back is a cross-site request as in production (no SameSite=Lax cookie rides
   * along). Default `127.0.0.1`.
   */
  host?: "127.0.0.1" | "localhost"
  /** Shown on the app's pages (`#instance`), to tell instances apart behind one origin. */
  instance?: string
  /** Core's adapter options on top (a SQL adapter's `passwords`…). */
  config?: Partial<AuthConfig>
}

/** What the app's logger was handed, one line per call (errors with their stack, to find them). */
export interface LogLine {
  level: "error" | "warn" | "debug"
  text: string
}

export interface SsoApp {
  origin: string
  config: AuthConfig
  adapter: Adapter
  store: SsoStore
  orgStore: OrganizationStore
  logs: LogLine[]
  /** A browser of this app made of `fetch` (no redirects followed) and a cookie jar. */
  browser(): Browser
  close(): Promise<void>
}

/** The app's own pages: where a sign-in lands, showing the path it landed on. */
function appPage(path: string, instance = ""): string {
  const text = (value: string) => value.replace(/[&<>"']/g, "")
  return `<!doctype html><title>App</title><p id="landed">${text(path)}</p><p id="instance">${text(instance)}</p>`
}

export async function startSsoApp(options: SsoAppOptions): Promise<SsoApp> {
  const adapter = options.adapter ?? MemoryAdapter()
  const store = options.store ?? memorySsoStore()
  const orgStore = options.orgStore ?? memoryOrganizationStore()
  const strategy = options.strategy ?? "jwt"
  const logs: LogLine[] = []
  const write = (level: LogLine["level"]) => (...parts: unknown[]) =>
    void logs.push({ level, text: parts.map((p) => (p instanceof Error ? `${p.name}: ${p.message}\n${p.stack}` : typeof p === "string" ? p : JSON.stringify(p))).join(" ") })
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    providers: [Password({ hashing: LIGHT })],
    session: strategy === "jwt" ? { strategy, registry: options.registry ?? new MemorySessionRegistry() } : { strategy },
    rateLimit: false,
    logger: { error: write("error"), warn: write("warn"), debug: () => {} },
    extensions: [organizations({ store: orgStore }), sso({ store, organizations: orgStore, dns: { servers: options.dns.servers } })],
    ...options.config,
  }
  const auth = authListener(config)
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith("/auth/") || req.url === "/auth") return auth(req, res)
    const path = new URL(req.url ?? "/", "http://app.invalid").pathname
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(appPage(path, options.instance))
  })
  const host = options.host ?? "127.0.0.1"
  // "localhost" may resolve to ::1 or 127.0.0.1: listen on both loopbacks then.
  await new Promise<void>((resolve) => (host === "localhost" ? server.listen(options.port ?? 0, resolve) : server.listen(options.port ?? 0, host, resolve)))
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`
  return {
    origin,
    config,
    adapter,
    store,
    orgStore,
    logs,
    browser: () => new Browser((request) => fetch(request, { redirect: "manual" }), origin),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** An organization's owner, signed in with a password (their step-up fresh), calling the server functions. */
export async function ownerOf(app: SsoApp, email: string, password = "the owner's long passphrase") {
  await seedUser(app.adapter, { email, password })
  const browser = app.browser()
  const signedIn = await passwordSignIn(browser, { email, password })
  if (signedIn.status !== 302 || signedIn.error) throw new Error(`owner sign-in failed: ${signedIn.status} ${signedIn.location}`)
  const functions = async () => {
    // POST: the calls change things; the origin is the app's own, as from its settings page.
    const all = await extensionFunctions({ origin: app.origin, method: "POST", headers: new Headers({ cookie: browser.cookieHeader(), origin: app.origin }) }, app.config)
    return all as unknown as {
      organizations: { create(input: { name: string }): Promise<{ id: string }> }
      sso: {
        claimDomain(org: string, domain: string): Promise<{ record: { name: string; value: string } }>
        verifyDomain(org: string, domain: string): Promise<{ verified: boolean }>
        setDomainPolicy(org: string, domain: string, policy: { requireSso?: boolean; connectionId?: string | null }): Promise<unknown>
        createConnection(org: string, input: ConnectionInput): Promise<ConnectionView>
        updateConnection(org: string, id: string, input: Partial<ConnectionInput>): Promise<ConnectionView>
        deleteConnection(org: string, id: string): Promise<void>
        createScimToken(org: string, connection: string): Promise<{ token: string; scimBaseUrl: string }>
      }
    }
  }
  return {
    browser,
    async createOrganization(name: string): Promise<string> {
      return (await (await functions()).organizations.create({ name })).id
    },
    /** Claims `domain`, publishes its TXT record in the test's DNS server and verifies it. */
    async verifyDomain(organizationId: string, domain: string, dns: DnsServer): Promise<void> {
      const { sso } = await functions()
      const claimed = await sso.claimDomain(organizationId, domain)
      dns.set(claimed.record.name, [claimed.record.value])
      const verified = await sso.verifyDomain(organizationId, domain)
      if (!verified.verified) throw new Error(`${domain} not verified`)
    },
    sso: async () => (await functions()).sso,
  }
}

export type Owner = Awaited<ReturnType<typeof ownerOf>>

/**
 * The assembled app the attacker suites aim at: a real `node:http` server answering with
 * `Auth()` configured with a memory adapter, a password (credentials) provider, the
 * organizations extension and the SSO extension, and the test IdP of `saml/idp-fixture.ts`
 * signing real responses. Organizations, connections and domains are seeded straight into the
 * stores (what the app's admins did before the attack); every attack goes over HTTP.
 */
import { inflateRawSync } from "node:zlib"
import type { AuditEvent, AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import Nodemailer from "@portcullis/core/providers/nodemailer"
import { extensionFunctions } from "@portcullis/core/integration"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { organizations } from "@portcullis/organizations"
import { memoryOrganizationStore } from "@portcullis/organizations/memory"
import { Browser, SECRET, captureLogger } from "../../../core/test/helpers.js"
import { httpServer, type TestServer } from "../../../core/test/http-server.js"
import { sso, verificationRecord, type SsoOptions } from "../../src/index.js"
import type { DomainChecker } from "../../src/locals.js"
import { memorySsoStore } from "../../src/memory.js"
import { samlAcsUrl, samlEntityId } from "../../src/saml-connection.js"
import { hashScimToken, newScimToken } from "../../src/scim/auth.js"
import type { Connection, SsoStore } from "../../src/store/types.js"
import { encode, samlConnection, testIdp, type AssertionOptions, type ResponseOptions, type TestClock, type TestIdp } from "../saml/idp-fixture.js"

/** The wall clock, in the fixture's shape: the app's SAML checks read the real time. */
export const wallClock: TestClock = { now: () => new Date(), ms: () => Date.now(), advance: () => {} }

export interface Tenant {
  id: string
  owner: { id: string; email: string }
  idp: TestIdp
  connection: Connection
  domain: string
}

/**
 * `dns`: the SSO extension's `dns` option (a real resolver, e.g. `{ servers }` of the local DNS
 * server fixture) instead of the in-memory table `published`. `peer`: a second instance of the
 * same deployment — this one shares `peer`'s user adapter, organizations store and SSO store.
 */
export async function assembledApp(options: { config?: Partial<AuthConfig>; store?: (store: SsoStore) => SsoStore; backing?: SsoStore; dns?: SsoOptions["dns"]; peer?: { adapter: ReturnType<typeof MemoryAdapter>; orgStore: ReturnType<typeof memoryOrganizationStore>; store: SsoStore } } = {}) {
  const adapter = options.peer?.adapter ?? MemoryAdapter()
  const orgStore = options.peer?.orgStore ?? memoryOrganizationStore()
  const memory = options.peer?.store ?? options.backing ?? memorySsoStore()
  /** The store the app is given (`options.store` may wrap it: a failing or slow backend); `store` is the data itself. */
  const store = memory
  const given = options.store ? options.store(memory) : memory
  /** TXT records "published" at each domain's challenge name: domain → values. */
  const published = new Map<string, string[]>()
  const dns: DomainChecker = { check: async (domain, token) => ((published.get(domain) ?? []).includes(verificationRecord(domain, token).value) ? "verified" : "not-found") }
  const passwords = new Map<string, string>()
  /** Magic links "mailed", by address. */
  const links = new Map<string, string>()
  const audit: AuditEvent[] = []
  const log = captureLogger()
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    adapter,
    session: { strategy: "jwt" },
    rateLimit: false,
    logger: log.logger,
    providers: [
      Credentials({
        credentials: { email: { label: "Email" }, password: { label: "Password", type: "password" } },
        async authorize({ email, password }) {
          const user = await adapter.getUserByEmail!(String(email))
          return user && passwords.get(user.id) === password ? { id: user.id, email: user.email, name: user.name ?? null } : null
        },
      }),
      Nodemailer({
        id: "email",
        server: "smtp://127.0.0.1:1",
        from: "Portcullis <auth@example.com>",
        interstitial: false,
        async sendVerificationRequest({ identifier, url }) {
          links.set(identifier, url)
        },
      }),
    ],
    extensions: [organizations({ store: orgStore }), sso({ store: given, organizations: orgStore, dns: options.dns ?? dns })],
    events: { audit: (event) => void audit.push(event) },
    ...options.config,
  }
  const server: TestServer = await httpServer(config)
  const authUrl = `${server.origin}/auth`
  let seq = 0

  const browser = () => new Browser(server.transport, server.origin)

  /** A user with a password (a "password account"). */
  async function passwordUser(email: string, password = "correct horse battery staple") {
    const user = await adapter.createUser!({ id: `user-${++seq}`, email, name: email.split("@")[0]!, emailVerified: new Date() })
    passwords.set(user.id, password)
    return { id: user.id, email, password }
  }

  /** Signs `user` in with their password in a fresh (or the given) browser. */
  async function signedIn(user: { email: string; password: string }, b = browser()) {
    const response = await b.signIn({ email: user.email, password: user.password })
    if (response.status !== 302 || !b.sessionCookie()) throw new Error(`sign-in of ${user.email} failed: ${response.status}`)
    return b
  }

  /**
   * An organization with an owner (a password user), a SAML connection trusting its own IdP,
   * and `domain` claimed (verified unless told).
   */
  async function tenant(name: string, domain: string, o: { verified?: boolean; requireSso?: boolean; saml?: Partial<NonNullable<Connection["saml"]>>; connection?: Partial<Connection> } = {}): Promise<Tenant> {
    const id = `org-${name}`
    const owner = await passwordUser(`owner@${name}-owner.example`)
    await orgStore.createOrganization({ id, name, slug: name, metadata: null, createdAt: new Date() }, { organizationId: id, userId: owner.id, role: "owner", createdAt: new Date() })
    const idp = testIdp(`https://idp.${name}.example`, wallClock)
    const connection: Connection = { ...samlConnection(`conn-${name}`, idp, o.saml), organizationId: id, ...o.connection }
    await store.createConnection(connection)
    await store.claimDomain({ domain, organizationId: id, token: `${name}-verification-token`, verifiedAt: null, requireSso: false, connectionId: null, createdAt: new Date() })
    if (o.verified !== false) await store.verifyDomain(domain, id, new Date())
    if (o.requireSso) await store.updateDomain(domain, id, { requireSso: true })
    return { id, owner: { id: owner.id, email: owner.email }, idp, connection, domain, ...{ ownerPassword: owner.password } } as Tenant & { ownerPassword: string }
  }

  /** Starts an SP-initiated sign-in in `b` (the sign-in page's button); the AuthnRequest's ID. */
  async function startSaml(b: Browser, connection: Connection, extra: Record<string, string> = {}): Promise<string> {
    const csrfToken = await b.csrfToken()
    const response = await b.request("/auth/sso/start", { form: { connection: connection.id, csrfToken, ...extra } })
    const location = response.headers.get("location")
    if (response.status !== 302 || !location) throw new Error(`start failed: ${response.status} ${await response.text()}`)
    const params = new URL(location).searchParams
    const request = inflateRawSync(Buffer.from(params.get("SAMLRequest")!, "base64")).toString("utf8")
    const id = /\bID="([^"]+)"/.exec(request)![1]!
    relays.set(id, params.get("RelayState") ?? "")
    return id
  }
  /** The relay states of started sign-ins, by request ID: the IdP posts it back with its response. */
  const relays = new Map<string, string>()

  /** The form the IdP's page posts to the ACS: a signed response for `requestId` and its relay state. */
  function acsForm(idp: TestIdp, connection: Connection, requestId: string | null, a: AssertionOptions = {}, r: ResponseOptions = {}): { SAMLResponse: string; RelayState?: string } {
    const relay = requestId ? relays.get(requestId) : undefined
    return { SAMLResponse: samlResponse(idp, connection, requestId, a, r), ...(relay !== undefined && { RelayState: relay }) }
  }

  /** A response of `idp` for `connection`'s ACS, its assertion signed. */
  function samlResponse(idp: TestIdp, connection: Connection, requestId: string | null, a: AssertionOptions = {}, r: ResponseOptions = {}): string {
    const acs = samlAcsUrl(authUrl, connection)
    return encode(idp.response(acs, idp.sign(idp.assertion(acs, { inResponseTo: requestId, audience: samlEntityId(authUrl, connection), ...a })), r))
  }

  /**
   * Posts a form to a connection's ACS the way an IdP's auto-submitting page does: cross-site.
   * A checked response is answered with a redirect to the same-site finish step, which the
   * browser follows with its own cookies (the binding made when it started): that answer is
   * returned, as the browser would end up on it.
   */
  async function postAcs(b: Browser, connectionId: string, form: Record<string, string> | string) {
    const headers = { origin: "https://idp.elsewhere.example", "content-type": "application/x-www-form-urlencoded" }
    const answered = await b.request(`/auth/sso/saml/${encodeURIComponent(connectionId)}/acs`, { method: "POST", headers, body: typeof form === "string" ? form : new URLSearchParams(form).toString() })
    const location = answered.headers.get("location")
    const next = answered.status === 302 && location ? new URL(location, authUrl) : null
    return next && next.pathname.endsWith("/finish") ? b.request(next.pathname + next.search) : answered
  }

  /** A SCIM token of `connection`. */
  async function scimToken(connection: Connection): Promise<string> {
    const token = newScimToken()
    await store.addScimToken({ id: `tok-${++seq}`, connectionId: connection.id, organizationId: connection.organizationId, hash: await hashScimToken(token), createdAt: new Date(), lastUsedAt: null })
    return token
  }

  function scim(token: string, connectionId: string, method: string, path: string, body?: unknown) {
    return fetch(`${authUrl}/sso/scim/${encodeURIComponent(connectionId)}/v2${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { "content-type": "application/scim+json" }) },
      ...(body !== undefined && { body: typeof body === "string" ? body : JSON.stringify(body) }),
    })
  }

  /** A JSON call to a management route as the person in `b`. */
  async function manage(b: Browser, method: "GET" | "POST", path: string, body: Record<string, unknown> = {}) {
    const response = method === "GET" ? await b.request(`/auth/sso/${path}`) : await b.request(`/auth/sso/${path}`, { json: body, headers: { "x-csrf-token": await b.csrfToken() } })
    const text = await response.text()
    let parsed: any = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: response.status, body: parsed, text }
  }

  /** The server functions (`extensions.sso`) bound to the request of `b`. */
  async function serverFunctions(b: Browser) {
    const functions = (await extensionFunctions({ origin: server.origin, method: "POST", headers: new Headers({ cookie: b.cookieHeader() }) }, config)) as Record<string, Record<string, (...args: unknown[]) => Promise<unknown>>>
    return functions.sso!
  }

  /** Everything logged, as one string: no secret may be in it. */
  const logged = () => log.lines.join("\n")

  return { links, adapter, orgStore, store, published, passwords, audit, log, logged, config, server, authUrl, browser, passwordUser, signedIn, tenant, startSaml, samlResponse, acsForm, relays, postAcs, scimToken, scim, manage, serverFunctions, close: () => server.close() }
}

export type App = Awaited<ReturnType<typeof assembledApp>>

/** A body that is a clear refusal: no stack trace, no internals. */
export function noStack(text: string): boolean {
  return !/\n\s+at .+\(|node_modules|Error: /.test(text)
}

/**
 * The provider's test bed: a configuration with the extension on a memory store, a memory
 * adapter holding people who sign in with a Credentials provider (JWT sessions), each in
 * their own browser, and a relying party's helpers (PKCE, code flow, token calls).
 */
import { Auth, type AuditEvent, type AuthConfig } from "@portcullis/core"
import Credentials from "@portcullis/core/providers/credentials"
import { MemoryAdapter } from "@portcullis/memory-adapter"
import { oidcProvider, type OidcProviderOptions, type StaticClientOptions } from "@portcullis/oidc-provider"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import type { OidcProviderStore } from "@portcullis/oidc-provider"
import { createHash, randomBytes } from "node:crypto"
import { Browser, SECRET, captureLogger, direct } from "../../core/test/helpers.js"

export const ORIGIN = "http://localhost:3000"
export const ISSUER = `${ORIGIN}/auth/oidc`
export const RP = "https://rp.example/callback"
export const SECRET_WEB = "web-client-secret-with-plenty-of-entropy-0123456789"

/** The clients most suites use: a confidential web app, a public native app, a first-party app, a service. */
export const CLIENTS: StaticClientOptions[] = [
  { clientId: "web", clientSecret: SECRET_WEB, redirectUris: [RP], postLogoutRedirectUris: ["https://rp.example/bye"], name: "Web App", resources: ["https://api.example/mcp"] },
  { clientId: "native", redirectUris: ["http://127.0.0.1/callback", "com.example.app:/cb"], name: "Native App" },
  { clientId: "first", clientSecret: SECRET_WEB, redirectUris: [RP], firstParty: true, name: "Our Own" },
  { clientId: "service", clientSecret: SECRET_WEB, redirectUris: [], grantTypes: ["client_credentials"], scope: "read", name: "Service" },
]

export interface TestbedOptions {
  store?: OidcProviderStore
  provider?: Partial<OidcProviderOptions>
  config?: Partial<AuthConfig>
}

export function testbed(options: TestbedOptions = {}) {
  const adapter = MemoryAdapter()
  const store = options.store ?? memoryOidcProviderStore()
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
        credentials: { email: { label: "Email" } },
        async authorize({ email }) {
          const user = await adapter.getUserByEmail!(String(email))
          return user ? { id: user.id, email: user.email, name: user.name ?? null } : null
        },
      }),
    ],
    extensions: [oidcProvider({ store, clients: CLIENTS, scopes: ["read"], resources: ["https://api.example/mcp"], ...options.provider })],
    events: { audit: (event) => void audit.push(event) },
    ...options.config,
  }

  /** A person with an account, signed in in their own browser. */
  async function person(name: string, opts: { signedIn?: boolean } = {}) {
    const email = `${name}@example.com`
    const user = await adapter.createUser!({ id: `user-${name}`, email, name: name[0]!.toUpperCase() + name.slice(1), emailVerified: new Date() })
    const browser = new Browser(direct(config), ORIGIN)
    if (opts.signedIn !== false) {
      const response = await browser.signIn({ email })
      if (response.status !== 302) throw new Error(`sign-in failed: ${response.status}`)
    }
    return { id: user.id, email, browser }
  }

  /** A request from a machine client (no cookies). */
  async function call(path: string, init: { form?: Record<string, string>; headers?: Record<string, string>; method?: string } = {}): Promise<{ status: number; body: any; headers: Headers }> {
    const headers = new Headers(init.headers)
    let body: string | undefined
    if (init.form) {
      headers.set("content-type", "application/x-www-form-urlencoded")
      body = new URLSearchParams(init.form).toString()
    }
    const response = await Auth(new Request(new URL(path, ORIGIN), { method: init.method ?? (body !== undefined ? "POST" : "GET"), headers, body }), config)
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: response.status, body: parsed, headers: response.headers }
  }

  const events = () => audit.filter((e) => e.type.startsWith("oidc.")).map((e) => `${e.type.slice(5)}/${e.outcome}`)

  return { adapter, store, audit, events, log, config, person, call }
}

export type Testbed = ReturnType<typeof testbed>
export type Person = Awaited<ReturnType<Testbed["person"]>>

/** A PKCE verifier and its S256 challenge. */
export function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString("base64url")
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") }
}

export function basic(clientId: string, secret: string): Record<string, string> {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, "+")
  return { authorization: `Basic ${Buffer.from(`${enc(clientId)}:${enc(secret)}`).toString("base64")}` }
}

/** The authorize URL for `params` (defaults: the web client, openid email profile, a state). */
export function authorizeUrl(params: Record<string, string | string[]>): string {
  const url = new URL(`${ISSUER}/authorize`)
  const all: Record<string, string | string[]> = { response_type: "code", client_id: "web", redirect_uri: RP, scope: "openid email profile", state: "st-1", ...params }
  for (const [k, v] of Object.entries(all)) for (const one of Array.isArray(v) ? v : [v]) url.searchParams.append(k, one)
  return url.pathname + url.search
}

/** The hidden field `name` of a page's form. */
export function field(page: string, name: string): string {
  const match = new RegExp(`name="${name}" value="([^"]*)"`).exec(page)
  if (!match) throw new Error(`no ${name} field in the page`)
  return match[1]!.replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
}

/**
 * Runs `authorize` in `who`'s browser and answers the consent page with `decision` when one is
 * shown: the final redirect's URL (to the client), or the response when it is not a redirect.
 */
export async function authorizeAs(who: Person, params: Record<string, string | string[]>, decision: "allow" | "deny" = "allow"): Promise<{ location?: URL; response: Response; page?: string }> {
  let response = await who.browser.request(authorizeUrl(params))
  if (response.status === 200) {
    const page = await response.text()
    if (!page.includes('name="interaction"')) return { response, page }
    response = await who.browser.request("/auth/oidc/consent", { form: { csrfToken: field(page, "csrfToken"), interaction: field(page, "interaction"), decision } })
  }
  const location = response.headers.get("location")
  return { response, ...(location && { location: new URL(location, ORIGIN) }) }
}

/** The code flow for `who` through to the code. */
export async function codeFor(who: Person, params: Record<string, string | string[]> = {}): Promise<{ code: string; location: URL }> {
  const { location, response } = await authorizeAs(who, params)
  const code = location?.searchParams.get("code")
  if (!code) throw new Error(`no code: ${response.status} ${location?.href ?? (await response.text()).slice(0, 300)}`)
  return { code, location: location! }
}

/**
 * The OpenID Provider the real-client tests talk to: core's `Auth()` behind `node:http` on a
 * loopback port, people signing in with the Password provider, a memory adapter and a memory
 * provider store of its own (each test file starts its own, so files never share state), and
 * the clients the test registers. The issuer is `http://127.0.0.1:<port>/auth/oidc`.
 *
 * Relying parties that run in Chromium live on `http://localhost:<port>`: another host than
 * the provider, so the two sites' cookies (both named `authjs.*`) never share a jar.
 * @module
 */
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import type { AuditEvent, AuthConfig } from "@portcullis/core"
import Password from "@portcullis/core/providers/password"
import { MemoryAdapter, MemorySessionRegistry } from "@portcullis/memory-adapter"
import { oidcProvider, type OidcProviderOptions, type StaticClientOptions } from "@portcullis/oidc-provider"
import { memoryOidcProviderStore } from "@portcullis/oidc-provider/memory"
import type { Page } from "playwright-core"
import { SECRET } from "../../../core/test/helpers.js"
import { authListener } from "../../../core/test/http-server.js"
import { LIGHT, seedUser } from "../../../core/test/password/support.js"
import { continueWithEmail } from "../../../../e2e/support.js"

export interface OpServer {
  origin: string
  issuer: string
  config: AuthConfig
  audit: AuditEvent[]
  /** What the provider logged as errors (a test fails on one it did not expect). */
  errors: string[]
  /** Stores a person who signs in with `password`. */
  person(email: string, password?: string, name?: string): Promise<{ id: string; email: string; password: string }>
  close(): Promise<void>
}

export const PASSWORD = "a long and rather unguessable passphrase"

/** Starts the provider with `clients` on a free loopback port. */
export async function startOp(clients: StaticClientOptions[], provider: Partial<OidcProviderOptions> = {}): Promise<OpServer> {
  const adapter = MemoryAdapter()
  const audit: AuditEvent[] = []
  const errors: string[] = []
  let handler: ReturnType<typeof authListener> | undefined
  const server: Server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()))
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const config: AuthConfig = {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    adapter,
    providers: [Password({ hashing: LIGHT })],
    session: { strategy: "jwt", registry: new MemorySessionRegistry() },
    rateLimit: false,
    logger: { error: (...parts: unknown[]) => void errors.push(parts.map(String).join(" ")), warn: () => {}, debug: () => {} },
    extensions: [oidcProvider({ store: memoryOidcProviderStore(), clients, ...provider })],
    events: { audit: (event) => void audit.push(event) },
  }
  handler = authListener(config)
  return {
    origin,
    issuer: `${origin}/auth/oidc`,
    config,
    audit,
    errors,
    async person(email, password = PASSWORD, name) {
      const user = await seedUser(adapter, { email, password })
      if (name) await adapter.updateUser!({ id: user.id, name })
      return { id: user.id, email, password }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** On the provider's sign-in page (identifier-first): the address, then the password. */
export async function signInAtOp(page: Page, email: string, password = PASSWORD): Promise<void> {
  await continueWithEmail(page, email)
  await page.getByLabel("Password").fill(password)
  await page.getByRole("button", { name: /sign in with password/i }).click()
}

/** A `node:http` server on `http://localhost:<port>` (both loopbacks) answering with `listener`. */
export async function localhostServer(listener: Parameters<typeof createServer>[1]): Promise<{ origin: string; server: Server; close(): Promise<void> }> {
  const server = createServer(listener)
  await new Promise<void>((resolve) => server.listen(0, "localhost", resolve))
  const origin = `http://localhost:${(server.address() as AddressInfo).port}`
  return {
    origin,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

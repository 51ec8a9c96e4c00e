// The app the end-to-end suites run as child processes: a bare node:http server that hands
// `/auth/*` to `Auth()` with the organizations extension, plus two app routes that ask the
// extension's server functions (`GET /app/can`, `GET /app/active`) as an app's own pages
// would. Node runs this file directly (type stripping), on the built packages.
//
// Environment: E2E_STORE=postgres|redis, E2E_STORE_URL, PORT, AUTH_SECRET, E2E_PREFIX (the
// Redis key prefix; PostgreSQL uses a database of its own), E2E_ADAPTER_TIMEOUT (ms),
// E2E_TRUSTED_ORIGINS (comma-separated: both instances, so either may mail a link).
//
// stdout: JSON lines `{"listening": port}` and `{"mail": {to, url}}` for each email sent.
// stderr: JSON lines, one per log call of core and of the store clients, with the whole
// error chain, so the suite can count outage lines and search them for secrets.
import { once } from "node:events"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { Readable } from "node:stream"
import { randomUUID } from "node:crypto"
import { Auth, type AuthConfig } from "@portcullis/core"
import type { Adapter } from "@portcullis/core/adapters"
import { ServiceUnavailable } from "@portcullis/core/errors"
import { ExtensionRequestError } from "@portcullis/core/extension"
import { extensionFunctions } from "@portcullis/core/integration"
import Credentials from "@portcullis/core/providers/credentials"
import type { EmailConfig } from "@portcullis/core/providers/email"
import { organizations, type OrganizationStore } from "@portcullis/organizations"
import { migrateOrganizations, sqlOrganizationStore } from "@portcullis/organizations/sql"
import { redisOrganizationStore } from "@portcullis/organizations/redis"
import { createRedisClient, RedisAdapter } from "@portcullis/redis-adapter"
import { createPostgresKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { E2E_PASSWORD } from "./constants.ts"

const out = (line: object) => process.stdout.write(JSON.stringify(line) + "\n")
// A logger must never throw: core calls it inside request handling.
const log = (line: object) => void process.stderr.write(safeJson(line) + "\n")

/** JSON of anything, cycles cut (ioredis errors hold their earlier errors, which hold them). */
function safeJson(value: unknown): string {
  const seen = new WeakSet<object>()
  try {
    return JSON.stringify(value, (_key, v: unknown) => {
      if (v instanceof Error) return { name: v.name, message: v.message }
      if (typeof v !== "object" || v === null) return v
      if (seen.has(v)) return "[cycle]"
      seen.add(v)
      return v
    })
  } catch {
    return String(value)
  }
}

/** An error and its causes, stacks included: what an operator's log would keep. */
function chain(error: unknown): object[] {
  const links: object[] = []
  for (let e: unknown = error; e && links.length < 8; e = (e as { cause?: unknown }).cause) {
    if (e instanceof Error) links.push({ name: e.name, message: e.message, stack: e.stack })
    else links.push({ value: safeJson(e) })
  }
  return links
}

const storeLogger = {
  error: (message: string, error?: unknown) => log({ source: "store-client", level: "error", message, chain: chain(error) }),
  warn: (message: string) => log({ source: "store-client", level: "warn", message }),
}

async function openStores(kind: string, url: string): Promise<{ adapter: Adapter; store: OrganizationStore }> {
  if (kind === "postgres") {
    const db = createPostgresKysely(url, { pool: { logger: storeLogger } })
    await migrateToLatest(db, { dialect: "postgres" })
    await migrateOrganizations(db)
    return { adapter: SqlAdapter(db), store: sqlOrganizationStore(db) }
  }
  if (kind === "redis") {
    const prefix = process.env.E2E_PREFIX ?? "e2e:"
    const redis = createRedisClient(url, { logger: storeLogger })
    // The offline queue is off: wait for the first connection before serving.
    await once(redis, "ready")
    return { adapter: RedisAdapter(redis, { prefix, logger: storeLogger }), store: redisOrganizationStore(redis, { prefix: `${prefix}orgs:` }) }
  }
  throw new Error(`E2E_STORE must be postgres or redis, not ${kind}`)
}

const { adapter, store } = await openStores(process.env.E2E_STORE ?? "", process.env.E2E_STORE_URL ?? "")

const mailer: EmailConfig = {
  id: "capture",
  name: "Capture",
  type: "email",
  from: "Team <team@e2e.test>",
  sendVerificationRequest: ({ identifier, url }) => void out({ mail: { to: identifier, url } }),
}

const config: AuthConfig = {
  secret: process.env.AUTH_SECRET!,
  trustHost: true,
  trustedOrigins: (process.env.E2E_TRUSTED_ORIGINS ?? "").split(",").filter(Boolean),
  adapter,
  adapterTimeout: Number(process.env.E2E_ADAPTER_TIMEOUT ?? 5000),
  session: { strategy: "jwt" },
  // The suites send 50 accepts from one address in a second, far beyond the per-address
  // limits; limits are tested elsewhere, these suites test the store under them.
  rateLimit: false,
  providers: [
    Credentials({
      credentials: { email: {}, password: { type: "password" } },
      // A sign-up on first sign-in, with the address taken as verified: the invitations
      // need verified users, and the suites need many.
      async authorize({ email, password }) {
        if (password !== E2E_PASSWORD || typeof email !== "string" || !/^[a-z0-9.-]+@e2e\.test$/.test(email)) return null
        const user = (await adapter.getUserByEmail!(email)) ?? (await adapter.createUser!({ id: randomUUID(), email, name: email.split("@")[0]!, emailVerified: new Date() }))
        return { id: user.id, email: user.email, name: user.name ?? null }
      },
    }),
  ],
  notifications: { mailer, email: false },
  extensions: [organizations({ store, roles: { admin: ["project:create"] } })],
  logger: {
    error: (error) => log({ source: "auth", level: "error", chain: chain(error) }),
    warn: (code, details) => log({ source: "auth", level: "warn", code, details }),
    debug: () => {},
  },
}

/** The Web request for a Node request (origin from `Host`, the body streamed). */
function toWebRequest(req: IncomingMessage): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name === "connection" || name === "transfer-encoding") continue
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v)
  }
  const method = req.method ?? "GET"
  const body = method === "GET" || method === "HEAD" ? undefined : (Readable.toWeb(req) as ReadableStream)
  return new Request(`http://${req.headers.host}${req.url ?? "/"}`, { method, headers, body, duplex: "half" } as RequestInit)
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value)
  const cookies = response.headers.getSetCookie()
  if (cookies.length) res.setHeader("set-cookie", cookies)
  res.end(Buffer.from(await response.arrayBuffer()))
}

/** An app page asking the extension, as a server component or handler would. */
async function appRoute(request: Request): Promise<Response> {
  const url = new URL(request.url)
  const { organizations: orgs } = (await extensionFunctions({ origin: url.origin, headers: request.headers, method: request.method }, config)) as unknown as {
    organizations: { can(permission: string, options: { organizationId?: string }): Promise<boolean>; active(): Promise<unknown> }
  }
  try {
    if (url.pathname === "/app/can") {
      const organizationId = url.searchParams.get("organizationId") ?? undefined
      return Response.json({ can: await orgs.can(url.searchParams.get("permission") ?? "", organizationId ? { organizationId } : {}) })
    }
    if (url.pathname === "/app/active") return Response.json({ active: await orgs.active() })
    return Response.json({ error: "not-found" }, { status: 404 })
  } catch (error) {
    // What the docs tell an app to do: an outage is a 503 it can show as "try again".
    if (error instanceof ServiceUnavailable) return Response.json({ error: "ServiceUnavailable" }, { status: 503, headers: { "retry-after": "5" } })
    if (error instanceof ExtensionRequestError) return Response.json({ error: error.code }, { status: error.status })
    throw error
  }
}

const server = createServer((req, res) => {
  const request = toWebRequest(req)
  const path = new URL(request.url).pathname
  const answer = path.startsWith("/auth/") ? Auth(request, config) : appRoute(request)
  answer.then(
    (response) => send(res, response),
    // No stack to the client, ever; the suite counts these as failures.
    (error: unknown) => {
      log({ source: "app", level: "error", chain: chain(error) })
      res.statusCode = 500
      res.end(JSON.stringify({ error: "internal" }))
    },
  )
})
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => out({ listening: (server.address() as { port: number }).port }))
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => process.exit(0))

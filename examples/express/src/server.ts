import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type RequestListener } from "node:http"
import type { AddressInfo } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { generateSecret } from "@portcullis/cli"
import { createSqliteKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
import { migrateOrganizations, sqlOrganizationStore } from "@portcullis/organizations/sql"
import { migrateAdmin, sqlBanStore, sqlImpersonationStore } from "@portcullis/admin/sql"
import { createApp } from "./app.ts"
import { startDemoOidcProvider } from "@portcullis/example-kit/oidc-server"
import { startDemoSmtp } from "@portcullis/example-kit/smtp"

const here = dirname(fileURLToPath(import.meta.url))
const dataDir = process.env.DEMO_DATA_DIR ?? join(here, "..", "data")

/**
 * A development secret kept beside the demo, so sessions survive restarts without any
 * setup. Real apps set AUTH_SECRET (`npx @portcullis/cli secret --write`).
 */
function devSecret(): string {
  if (process.env.AUTH_SECRET) return process.env.AUTH_SECRET
  const file = join(dataDir, "dev-secret")
  try {
    return readFileSync(file, "utf8").trim()
  } catch {
    const secret = generateSecret()
    writeFileSync(file, secret, { mode: 0o600 })
    return secret
  }
}

/** Says why the demo cannot start, in one line, and ends it. */
function cannotStart(reason: string): never {
  console.error(`The demo cannot start: ${reason}`)
  process.exit(1)
}

/** What to stop on SIGINT/SIGTERM besides the server and the database. */
const closers: (() => Promise<unknown>)[] = []

// An embedded SQLite database (node:sqlite): nothing to install, schema created on first start.
mkdirSync(dataDir, { recursive: true })
const db = createSqliteKysely(join(dataDir, "portcullis.sqlite"))
// Core's tables, then the organizations extension's (the Team page) and the admin console's
// (bans, impersonations), in the same database:
// what `portcullis migrate --with @portcullis/organizations --with @portcullis/admin` applies.
const applied = [...(await migrateToLatest(db, { dialect: "sqlite" })), ...(await migrateOrganizations(db)), ...(await migrateAdmin(db))]
if (applied.length) console.log(`Created the database schema (${applied.join(", ")}) in ${join(dataDir, "portcullis.sqlite")}`)

// The handler is attached before `listen`: a request that arrives while the demo starts
// (a browser opened by a script, a health check) waits for the app instead of hanging on a
// server with no listener (one waited 12 minutes). Startup takes a moment because the local
// OpenID provider must know the app's port before the app's config can name it.
let started!: { resolve(app: RequestListener): void; reject(error: unknown): void }
const app = new Promise<RequestListener>((resolve, reject) => (started = { resolve, reject }))
app.catch(() => {}) // a failed start is reported (and ends the process) below
const server = createServer((req, res) => {
  app.then(
    (handle) => handle(req, res),
    () => res.writeHead(503, { "content-type": "text/plain" }).end("The demo failed to start; see its terminal"),
  )
})
// HOST=0.0.0.0 makes the demo reachable through a container's published port; the default
// keeps it on this machine only.
const host = process.env.HOST || "127.0.0.1"
const wanted = process.env.PORT || "3000"
// A bad PORT or HOST, or a port already taken, is the usual first-run failure: one line that
// says which and what to do, not a stack.
if (!/^\d{1,5}$/.test(wanted) || Number(wanted) > 65535) cannotStart(`PORT=${wanted} is not a port number (0 to 65535; 0 picks a free one)`)
// `AUTH_URL=localhost:3000` (no scheme) parses as a URL of scheme "localhost:" whose origin is
// "null": the demo ran, said it listened on "null", and no sign-in could work.
const authUrl = process.env.AUTH_URL ? URL.parse(process.env.AUTH_URL) : undefined
if (process.env.AUTH_URL && !(authUrl && /^https?:$/.test(authUrl.protocol) && authUrl.host)) {
  cannotStart(`AUTH_URL=${process.env.AUTH_URL} is not an http(s) URL; write it as the address you browse, e.g. AUTH_URL=http://localhost:3000`)
}
try {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(Number(wanted), host, resolve)
  })
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code
  cannotStart(
    code === "EADDRINUSE" ? `${host}:${wanted} is in use (another demo?): stop it, or pick another port, e.g. PORT=3001 npm start`
    : code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EADDRNOTAVAIL" ? `HOST=${host} is not an address of this machine (leave HOST unset for 127.0.0.1)`
    : code === "EACCES" ? `${host}:${wanted} needs privileges: pick a port above 1023`
    : `cannot listen on ${host}:${wanted}: ${(error as Error).message}`,
  )
}
const port = (server.address() as AddressInfo).port
// Off loopback, anyone who reaches the port gets what the demo hands out freely: its account's
// password is printed below and in the README, and "Demo OIDC" takes any password. Say so
// before anything else, so a HOST set for a container is a choice made knowingly.
if (!/^(127\.\d+\.\d+\.\d+|::1|localhost)$/i.test(host)) {
  console.warn(
    `Warning: HOST=${host} makes this demo reachable from other machines on port ${port}. It is for development only: ` +
      "anyone who reaches it can sign in as demo / portcullis, and sign-in links are printed here. " +
      "Publish the port to this machine only (docker run -p 127.0.0.1:3000:3000) or leave HOST unset.",
  )
}

try {
  // The site's origins. With AUTH_URL set, that URL alone (core reads it). Otherwise both
  // loopback names a browser may use, `localhost` and `127.0.0.1`: each is trusted exactly,
  // so sign-in works at either, while a request with any other Host is refused (400) rather
  // than believed — no trustHost, so no forged Host ever shapes a link or a redirect.
  const origins = authUrl ? [authUrl.origin] : [`http://localhost:${port}`, `http://127.0.0.1:${port}`]

  const oidcClient = { clientId: "portcullis-demo", clientSecret: generateSecret() }
  const op = await startDemoOidcProvider({
    port: Number(process.env.DEMO_OIDC_PORT ?? 0),
    ...oidcClient,
    redirectUris: origins.map((origin) => `${origin}/auth/callback/demo-oidc`),
  })

  // A mail catcher on loopback: "Sign in with Email" works offline; links are printed below.
  const smtp = await startDemoSmtp({ port: Number(process.env.DEMO_SMTP_PORT ?? 0) })

  started.resolve(
    createApp({
      secret: devSecret(),
      adapter: SqlAdapter(db, { sessionMetadata: true, passwords: true, auditTrail: true }),
      oidc: { issuer: op.issuer, ...oidcClient },
      smtpUrl: smtp.url,
      organizations: sqlOrganizationStore(db),
      bans: sqlBanStore(db),
      impersonations: sqlImpersonationStore(db),
      ...(process.env.ADMIN_EMAILS && { adminEmails: process.env.ADMIN_EMAILS.split(",").map((e) => e.trim().toLowerCase()).filter(Boolean) }),
      trustedOrigins: authUrl ? undefined : origins,
    }),
  )
  console.log(`Portcullis demo listening on ${origins[0]}${origins[1] ? ` (and ${origins[1]})` : ""}`)
  console.log(`Sign in with demo / portcullis, with "Demo OIDC" (login: demo, any password; provider at ${op.issuer}),`)
  console.log(`with a passkey (at localhost: browsers allow no passkeys on an IP address), or by email (any address: the link is printed here; mail catcher at ${smtp.url})`)
  console.log(`Admin console: ${origins[0]}/auth/admin, for ${process.env.ADMIN_EMAILS || "demo@portcullis.dev (sign in with Demo OIDC)"}`)
  closers.push(() => op.close(), () => smtp.close())
} catch (error) {
  started.reject(error)
  console.error("The demo failed to start:", error)
  server.close()
  await db.destroy()
  process.exit(1)
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.closeAllConnections()
    server.close(() => void Promise.allSettled([...closers.map((close) => close()), db.destroy()]).finally(() => process.exit(0)))
  })
}

import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { generateSecret } from "@portcullis/cli"
import { createSqliteKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"
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

// An embedded SQLite database (node:sqlite): nothing to install, schema created on first start.
mkdirSync(dataDir, { recursive: true })
const db = createSqliteKysely(join(dataDir, "portcullis.sqlite"))
const applied = await migrateToLatest(db, { dialect: "sqlite" })
if (applied.length) console.log(`Created the database schema (${applied.join(", ")}) in ${join(dataDir, "portcullis.sqlite")}`)

// Listen first: the local OpenID provider must know the app's callback URL (and its port).
const server = createServer()
await new Promise<void>((resolve) => server.listen(Number(process.env.PORT ?? 3000), "127.0.0.1", resolve))
const port = (server.address() as AddressInfo).port
// The site's own URL: every absolute URL the demo hands out (mailed links, the OpenID
// provider's redirect_uri, passkey origins) is built from it, never from a Host header.
process.env.AUTH_URL ??= `http://localhost:${port}`

const oidcClient = { clientId: "portcullis-demo", clientSecret: generateSecret() }
const op = await startDemoOidcProvider({
  port: Number(process.env.DEMO_OIDC_PORT ?? 0),
  ...oidcClient,
  redirectUris: [`http://localhost:${port}/auth/callback/demo-oidc`, `http://127.0.0.1:${port}/auth/callback/demo-oidc`],
})

// A mail catcher on loopback: "Sign in with Email" works offline; links are printed below.
const smtp = await startDemoSmtp({ port: Number(process.env.DEMO_SMTP_PORT ?? 0) })

server.on("request", createApp({ secret: devSecret(), adapter: SqlAdapter(db, { sessionMetadata: true, passwords: true }), oidc: { issuer: op.issuer, ...oidcClient }, smtpUrl: smtp.url }))
console.log(`Portcullis demo listening on ${process.env.AUTH_URL}`)
console.log(`Sign in with demo / portcullis, with "Demo OIDC" (login: demo, any password; provider at ${op.issuer}),`)
console.log(`with a passkey, or by email (any address: the link is printed here; mail catcher at ${smtp.url})`)

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    server.closeAllConnections()
    server.close(() => void Promise.allSettled([op.close(), smtp.close(), db.destroy()]).finally(() => process.exit(0)))
  })
}

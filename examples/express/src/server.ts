import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createApp } from "./app.ts"
import { generateSecret } from "@portcullis/cli"
import { createSqliteKysely, migrateToLatest, SqlAdapter } from "@portcullis/sql-adapter"

const here = dirname(fileURLToPath(import.meta.url))
const dataDir = process.env.DEMO_DATA_DIR ?? join(here, "..", "data")

/**
 * A development secret kept beside the demo, so sessions survive restarts without any
 * setup. Real apps set AUTH_SECRET (`npx portcullis secret --write`).
 */
function devSecret(): string {
  if (process.env.AUTH_SECRET) return process.env.AUTH_SECRET
  const file = join(dataDir, "dev-secret")
  try {
    return readFileSync(file, "utf8").trim()
  } catch {
    const secret = generateSecret()
    mkdirSync(dataDir, { recursive: true })
    writeFileSync(file, secret, { mode: 0o600 })
    return secret
  }
}

// An embedded SQLite database (node:sqlite): nothing to install, schema created on first start.
mkdirSync(dataDir, { recursive: true })
const db = createSqliteKysely(join(dataDir, "portcullis.sqlite"))
const applied = await migrateToLatest(db, { dialect: "sqlite" })
if (applied.length) console.log(`Created the database schema (${applied.join(", ")}) in ${join(dataDir, "portcullis.sqlite")}`)

const port = Number(process.env.PORT ?? 3000)
const app = createApp({ secret: devSecret(), adapter: SqlAdapter(db) })
const server = app.listen(port, "127.0.0.1", () => {
  const address = server.address()
  const actual = typeof address === "object" && address ? address.port : port
  console.log(`Portcullis demo listening on http://localhost:${actual}`)
  console.log(`Sign in with demo / portcullis`)
})

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => server.close(() => db.destroy().finally(() => process.exit(0))))
}

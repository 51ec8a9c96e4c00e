import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { createApp } from "./app.ts"
import { generateSecret } from "@portcullis/cli"

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

const port = Number(process.env.PORT ?? 3000)
const app = createApp({ secret: devSecret() })
const server = app.listen(port, "127.0.0.1", () => {
  const address = server.address()
  const actual = typeof address === "object" && address ? address.port : port
  console.log(`Portcullis demo listening on http://localhost:${actual}`)
  console.log(`Sign in with demo / portcullis`)
})

for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => server.close(() => process.exit(0)))
